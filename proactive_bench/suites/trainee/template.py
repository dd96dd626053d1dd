"""The template protocol: ``instantiate(ctx) -> TaskDraft``, the context it draws from, and ``TEMPLATES``.

Every random choice of a template comes from ``ctx.rng`` and every name from
``ctx.names`` (a :class:`NamePool` shared by the whole scenario, so two tasks
never share a person, a vendor or a file). See /work/trainee-spec.md.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Protocol, TypeVar

from proactive_bench.suites.trainee.model import Difficulty, Domain, Npc, TaskDraft

FIRST_NAMES = (
    "Amara Bashir Camille Dorian Esme Farid Greta Hollis Ines Jonah Kaia Lucan Mirela Nestor Odile Pavel Quinn Rosalind "
    "Soren Talia Umberto Vesna Wendell Xiomara Yusuf Zelda Anselm Brigid Cosmo Delphine Emrys Florian Gisela Haruto Isolde "
    "Jasper Kerensa Leopold Marisol Niamh Orrin Petra Rafferty Sunniva Thaddeus Ulla Viggo Winifred Yara Zoltan"
).split()
LAST_NAMES = (
    "Abernathy Bellweather Castellano Drummond Eskildsen Fairbanks Galloway Hartigan Iwasaki Jankowski Kowalczyk Lindqvist "
    "Marchetti Nakashima Okonkwo Pemberton Quintero Rasmussen Szabo Thorsen Underhill Valdivia Whitcombe Yilmaz Zabala "
    "Achterberg Brannigan Coutinho Delacroix Engstrom Fitzgerald Gorecki Halvorsen Ishikawa Jaramillo Kettleborough "
    "Lombardi Mbeki Nordstrom Oyelaran Pacheco Quigley Rautenberg Sandoval Tanaka Urquhart Vasquez Wainwright "
    "Yamamoto Zeller Ahlberg Bustamante Cavanagh Dunleavy Ekwueme Ferreira Gustafsson Hollis Ivanova Jovanovic"
).split()
WORDS: dict[str, tuple[str, ...]] = {
    "vendor": tuple(
        "Acorn Brightline Copperleaf Dunmore Everfield Foxglove Granite Harbourside Ironwood Juniper Kestrel Lakeshore "
        "Meridian Northwind Oakridge Pinecrest Quarry Redwater Silverbirch Tidewater Upland Vantage Willowmere Ashgrove Bellhaven "
        "Caskwell Driftwood Elmstead Fernhill Goldcrest Hawthorne Ivywood Kingfisher Larkfield Moorland Netherby Primrose".split()
    ),
    "project": tuple(
        "Aurora Basalt Cinder Delta Ember Fjord Glacier Helix Indigo Jetty Kiln Lumen Mosaic Nimbus Orchid Prism "
        "Quartz Ripple Summit Tundra Umbra Vertex Zephyr".split()
    ),
    "room": tuple("Birch Cedar Elm Hazel Linden Maple Oak Poplar Rowan Spruce Sycamore Willow Alder Aspen Beech Cypress".split()),
    "city": tuple("Lisbon Porto Ghent Utrecht Tampere Gdansk Brno Graz Malmo Aarhus Bergen Leipzig Bilbao Turin Lyon Cork".split()),
}
WORDS["venue"] = tuple(f"{tree} {place}" for place in ("Hall", "Loft", "Terrace", "Barn", "Gallery", "Boathouse") for tree in WORDS["room"])
WORDS["region"] = tuple(
    f"{side} {city}" for side in ("North", "South", "East", "West", "Upper", "Lower", "Central", "Coastal") for city in WORDS["city"]
)
"""The pools ``NamePool.word`` draws from (written for pbench)."""
SHARED_ROLES: dict[str, tuple[str, str, str]] = {
    "hr": ("HR Partner", "People", "Knows who does what in the company and who owns which system or service."),
    "engineering_manager": ("Engineering Manager", "Engineering", "Signs off changes to production systems; terse and busy."),
    "office_manager": ("Office Manager", "Operations", "Runs the offices, rooms and supplies; cheerful and exact."),
    "finance_controller": ("Finance Controller", "Finance", "Keeps the books and the spending rules of every team."),
}
"""The scenario-wide colleagues (role, department, persona) that several tasks may reach (``NamePool.shared``)."""
COMPANIES = ("Larchmont Analytics", "Quillfeather Logistics", "Bramblewood Foods", "Corvid Robotics", "Saltmarsh Media")


@dataclass(frozen=True)
class Person:
    first: str
    last: str
    domain: str

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def handle(self) -> str:
        return f"{self.first}.{self.last}".lower()

    @property
    def email(self) -> str:
        return f"{self.handle}@{self.domain}"


@dataclass
class NamePool:
    """Unique names across one scenario day: people, words by kind, workspace paths."""

    rng: random.Random
    domain: str
    _people: set[str] = field(default_factory=set)
    _words: set[tuple[str, str]] = field(default_factory=set)
    _paths: set[str] = field(default_factory=set)
    _shared: dict[str, Person] = field(default_factory=dict)

    def shared(self, role: str) -> Person:
        """The scenario's one person in a shared role (:data:`SHARED_ROLES`): the same for every task that asks."""
        if role not in SHARED_ROLES:
            raise ValueError(f"no shared role {role!r}; known: {', '.join(SHARED_ROLES)}")
        if role not in self._shared:
            self._shared[role] = self.person()
        return self._shared[role]

    def person(self) -> Person:
        for _ in range(10_000):
            candidate = Person(self.rng.choice(FIRST_NAMES), self.rng.choice(LAST_NAMES), self.domain)
            if candidate.first not in self._people and candidate.last not in self._people:
                self._people |= {candidate.first, candidate.last}
                return candidate
        raise RuntimeError("the name pool ran out of people")

    def word(self, kind: str) -> str:
        free = [w for w in WORDS[kind] if (kind, w) not in self._words]
        if not free:
            raise RuntimeError(f"the name pool ran out of {kind} names")
        chosen = self.rng.choice(free)
        self._words.add((kind, chosen))
        return chosen

    def path(self, folder: str, stem: str, ext: str) -> str:
        path, n = f"{folder}{stem}.{ext}", 2
        while path in self._paths:
            path, n = f"{folder}{stem}_{n}.{ext}", n + 1
        self._paths.add(path)
        return path


@dataclass(frozen=True)
class Company:
    name: str
    domain: str
    intern: Person
    day: date

    @property
    def day_start(self) -> datetime:
        return datetime.combine(self.day, time(9, 0))


@dataclass(frozen=True)
class TemplateContext:
    """Everything a template may draw from."""

    rng: random.Random
    seed: int
    names: NamePool
    company: Company
    folder: str
    """The task's workspace folder (``t2_audit/``): every file of the task goes under it."""
    arrival_minute: int = 0
    """When a flexible task arrives, in minutes after the day's start (deadlines count from it)."""

    @property
    def day_start(self) -> datetime:
        return self.company.day_start

    def clue_ref(self, clue: str) -> str:
        """A clue's scenario id (``d1.t2.k1``), read from the task's folder (``t2_x/``, ``day2/t2_x/``): for ``clue_obtained``."""
        match = FOLDER.fullmatch(self.folder)
        if match is None:
            raise ValueError(f"task folder {self.folder!r} is not t<N>_<template>/ or day<D>/t<N>_<template>/")
        return f"d{match['day'] or 1}.{match['task']}.{clue}"


FOLDER = re.compile(r"(?:day(?P<day>[0-9]+)/)?(?P<task>t[0-9]+)_[a-z0-9_]+/")


class Template(Protocol):
    """A meta-task: code that turns a seed into one task (read-only attributes: a frozen dataclass fits)."""

    @property
    def name(self) -> str: ...
    @property
    def difficulty(self) -> Difficulty: ...
    @property
    def domain(self) -> Domain: ...
    @property
    def apps(self) -> tuple[str, ...]: ...

    def instantiate(self, ctx: TemplateContext) -> TaskDraft: ...


TEMPLATES: dict[str, Template] = {}
"""Every template by name (``templates/__init__.py`` imports each module, which registers its template)."""
T = TypeVar("T", bound=Template)


def register_template(template: T) -> T:
    """Add a template instance to :data:`TEMPLATES` (names are unique)."""
    if template.name in TEMPLATES:
        raise ValueError(f"template {template.name} registered twice")
    TEMPLATES[template.name] = template
    return template


def company_for(seed: int, day: date) -> tuple[Company, NamePool]:
    """The company of a scenario (from its seed) and a fresh name pool for one of its days."""
    rng = random.Random(f"company:{seed}:{day.isoformat()}")
    name = COMPANIES[seed % len(COMPANIES)]
    domain = name.split()[0].lower() + ".example"
    pool = NamePool(rng, domain)
    return Company(name, domain, pool.person(), day), pool


def context_for(template: str, seed: int, company: Company, names: NamePool, folder: str, arrival_minute: int = 0) -> TemplateContext:
    """The context a template instantiates from: its own seeded generator, the scenario's company and names."""
    return TemplateContext(random.Random(f"{template}:{seed}"), seed, names, company, folder, arrival_minute)


def checker(name: str, **args: object) -> dict[str, object]:
    """A checkpoint predicate running one named checker (``{checker: {name, args}}``)."""
    return {"checker": {"name": name, "args": args}}


def named(*words: str) -> tuple[str, ...]:
    """Subject cues (``Clue.subject``) naming each of the words as a whole word (a product, a supplier, a person)."""
    return tuple(rf"\b{re.escape(w)}\b" for w in words)


def minute_iso(ctx: TemplateContext, minute: int) -> str:
    """The ISO minute ``minute`` minutes after the day's start."""
    return (ctx.day_start + timedelta(minutes=minute)).isoformat(timespec="minutes")


def colleague(person: Person, role: str, department: str, persona: str) -> Npc:
    """An NPC for a person of the name pool (handle, name and e-mail from the person)."""
    return Npc(handle=person.handle, name=person.name, role=role, department=department, email=person.email, persona=persona)


def shared_colleague(ctx: TemplateContext, role: str) -> Npc:
    """The scenario's colleague in a shared role (:data:`SHARED_ROLES`): one person holding the clues of every task that needs
    the role, each clue told apart by its subject."""
    title, department, persona = SHARED_ROLES[role]
    person = ctx.names.shared(role)
    return Npc(handle=person.handle, name=person.name, role=title, department=department, email=person.email, persona=persona, shared=True)
