"""Loader errors name the file, the field path and the reason."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import yaml

from proactive_bench.dataset.loading import (
    DatasetError,
    GraderError,
    GraderResolver,
    Problem,
    load_episode,
)


def _edit(path: Path, fn) -> None:
    data = yaml.safe_load(path.read_text())
    fn(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def _problems(root: Path) -> list[str]:
    with pytest.raises(DatasetError) as info:
        load_episode(root, "mini")
    return [str(p) for p in info.value.problems]


def test_loads_the_mini_episode(mini_copy: Path) -> None:
    loaded = load_episode(mini_copy, "mini")
    assert [s.id for s in loaded.sessions] == ["a1", "a2", "a3"]
    assert loaded.depends_on("a2") == ["a1"]


def test_wrong_type_names_field_path(mini_copy: Path) -> None:
    _edit(mini_copy / "episodes/mini/sessions/a1.yaml", lambda d: d["checklist"][1].update(weight="heavy"))
    assert _problems(mini_copy) == [
        "episodes/mini/sessions/a1.yaml: checklist[1].weight: Input should be a valid number, unable to parse string as a number"
    ]


def test_bad_predicate_and_regex(mini_copy: Path) -> None:
    def breaks(d: dict) -> None:
        d["intents"][0]["evidence"] = {"all": [{"file_exist": "x"}, {"response_matches": "("}]}

    _edit(mini_copy / "episodes/mini/sessions/a1.yaml", breaks)
    problems = _problems(mini_copy)
    assert problems[0].startswith(
        "episodes/mini/sessions/a1.yaml: intents[0].evidence.all[0]: a predicate is a mapping with exactly one key"
    )
    assert problems[1].startswith(
        "episodes/mini/sessions/a1.yaml: intents[0].evidence.all[1].response_matches: invalid regular expression '('"
    )


def test_unknown_field_and_missing_required(mini_copy: Path) -> None:
    _edit(mini_copy / "episodes/mini/sessions/a3.yaml", lambda d: (d.pop("title"), d["intents"][0].update(colour="red")))
    assert set(_problems(mini_copy)) == {
        "episodes/mini/sessions/a3.yaml: title: Field required",
        "episodes/mini/sessions/a3.yaml: intents[0].colour: unknown field",
    }


def test_yaml_syntax_error_has_line(mini_copy: Path) -> None:
    (mini_copy / "episodes/mini/sessions/a2.yaml").write_text("id: a2\ntitle: [unclosed\n")
    (problem,) = _problems(mini_copy)
    assert problem.startswith("episodes/mini/sessions/a2.yaml: line 3, column 1: invalid YAML")


def test_dangling_and_forward_dependencies(mini_copy: Path) -> None:
    _edit(mini_copy / "episodes/mini/episode.yaml", lambda d: d["sessions"][1].update(depends_on=["nope"]))
    (problem,) = _problems(mini_copy)
    assert "depends on 'nope', which is not a session of this episode" in problem
    _edit(mini_copy / "episodes/mini/episode.yaml", lambda d: d["sessions"][1].update(depends_on=["a3"]))
    (problem,) = _problems(mini_copy)
    assert "depends on 'a3', which comes later in the episode" in problem


def test_missing_session_file_and_mismatched_id(mini_copy: Path) -> None:
    (mini_copy / "episodes/mini/sessions/a3.yaml").unlink()
    _edit(mini_copy / "episodes/mini/sessions/a2.yaml", lambda d: d.update(id="zz"))
    assert set(_problems(mini_copy)) == {
        "episodes/mini/episode.yaml: sessions[2].id: no file sessions/a3.yaml",
        "episodes/mini/sessions/a2.yaml: id: is 'zz' but the file is named for 'a2'",
    }


def test_unknown_persona_lists_known(mini_copy: Path) -> None:
    with pytest.raises(DatasetError, match="personas here: mini"):
        load_episode(mini_copy, "astronaut")


def test_grader_resolver_errors(mini_copy: Path) -> None:
    resolve = GraderResolver(mini_copy)
    assert resolve("graders.mini.checks:summary_has_mean").__name__ == "summary_has_mean"
    with pytest.raises(GraderError, match="no file graders/mini/nothere.py"):
        resolve("graders.mini.nothere:f")
    with pytest.raises(GraderError, match="has no function 'missing'"):
        resolve("graders.mini.checks:missing")
    (mini_copy / "graders/mini/broken.py").write_text("import does_not_exist\n")
    with pytest.raises(GraderError, match="importing graders/mini/broken.py failed"):
        resolve("graders.mini.broken:f")


def test_grader_modules_share_helpers_through_relative_imports(tmp_path: Path) -> None:
    folder = tmp_path / "graders" / "someone"
    folder.mkdir(parents=True)
    (folder / "common.py").write_text("def twice(x):\n    return 2 * x\n")
    (folder / "checks.py").write_text("from .common import twice\n\n\ndef four(evidence):\n    return twice(2) == 4\n")
    assert GraderResolver(tmp_path).resolve("graders.someone.checks:four")(None) is True


def test_a_dataset_error_pickles_with_its_problems() -> None:
    error = DatasetError([Problem("episodes/mini", "", "no such episode")])
    again = pickle.loads(pickle.dumps(error))  # as a Ray runner's error reaches the driver
    assert str(again) == "episodes/mini: no such episode" and again.problems == error.problems


def test_every_broken_link_of_a_file_is_reported_at_its_field(mini_copy: Path) -> None:
    def breaks(d: dict) -> None:
        d["checklist"].append(dict(d["checklist"][0]))  # repeats c1
        d["checklist"][1]["intent"] = "median"
        d["reference"][3].update(requires=["meen"])

    _edit(mini_copy / "episodes/mini/sessions/a1.yaml", breaks)
    _edit(
        mini_copy / "episodes/mini/episode.yaml",
        lambda d: (d["sessions"][1].update(depends_on=["nope"]), d["sessions"][2].update(depends_on=["a9"])),
    )
    assert set(_problems(mini_copy)) == {
        "episodes/mini/sessions/a1.yaml: checklist: duplicate ids: ['c1']",
        "episodes/mini/sessions/a1.yaml: checklist[1].intent: item 'c2' names unknown intent 'median'",
        "episodes/mini/sessions/a1.yaml: reference[3].requires: names unknown intents: ['meen']",
        "episodes/mini/episode.yaml: sessions[1].depends_on: session 'a2' depends on 'nope', which is not a session of this episode",
        "episodes/mini/episode.yaml: sessions[2].depends_on: session 'a3' depends on 'a9', which is not a session of this episode",
    }


def test_what_points_at_a_part_that_does_not_parse_is_not_reported_again(mini_copy: Path) -> None:
    _edit(mini_copy / "episodes/mini/sessions/a1.yaml", lambda d: d["intents"][1].update(scope="forever"))  # c2 and reference[3] name it
    _edit(mini_copy / "episodes/mini/sessions/a3.yaml", lambda d: d.update(intents="memo"))  # c2 names an intent of a list lost whole
    _edit(
        mini_copy / "episodes/mini/episode.yaml", lambda d: (d["sessions"][1].update(id="a 2"), d["sessions"][2].update(depends_on=["a 2"]))
    )
    assert set(_problems(mini_copy)) == {
        "episodes/mini/sessions/a1.yaml: intents[1].scope: Input should be 'session' or 'persistent'",
        "episodes/mini/sessions/a3.yaml: intents: Input should be a valid list",
        "episodes/mini/episode.yaml: sessions[1].id: String should match pattern '^[A-Za-z0-9][A-Za-z0-9_.-]*$'",
    }
