"""Each marketer grader on a right and a wrong workspace (real files, real SQLite app state)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.data_model.evidence import Evidence
from proactive_bench.dataset.loading import GraderResolver
from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace

REPO = Path(__file__).resolve().parents[2] / "pbench_data"
EPISODE = REPO / "episodes" / "marketer"
LOGIN = {"username": "noor.castellanos@oakline.example", "password": "Oak-Brand-2026"}
RESOLVE = GraderResolver(REPO)


def g(ref: str) -> Any:
    """A marketer grader function, loaded the way predicates load it (``module:function``)."""
    return RESOLVE(f"graders.marketer.{ref}")


def _workspace(tmp_path: Path, files: dict[str, str]) -> Workspace:
    shutil.copytree(EPISODE / "workspace", tmp_path / "ws")
    ws = Workspace(tmp_path / "ws")
    for path, text in files.items():
        ws.write_text(path, text)
    return ws


def _evidence(ws: Workspace, apps: AppStore | None = None) -> Evidence:
    return Evidence([], [], ws, Memory(), GraderResolver(REPO), apps)


# (grader, file path, a right text, a wrong text)
FILE_CASES: list[tuple[Any, str, str, str]] = [
    (
        g("research:s01_price_per_oz"),
        "research/2026-04-06_kids-bottle-market-scan.md",
        "| Summitra Junior | $1.69 |\n| Halden Mini | $1.83 |\n| Little Pine | $1.43 |\n| Sprout Bottle | $1.65 |\n| Trailhead Kids | $1.71 |\n",
        "| Summitra Junior | $27.00 |\n| Halden Mini | $22.00 |\n| Little Pine | $19.99 |\n| Sprout Bottle | $16.50 |\n| Trailhead Kids | $24.00 |\n",
    ),
    (
        g("research:s08_engagement"),
        "research/creator-shortlist.md",
        "- @schoolrunsam 8.60%\n- @packandpeak 7.82%\n- @outdoordadjon 5.99%\n- @pnwfamilyoutside 5.44%\n- @trailmama_pdx 4.83%\n- @weekendwanderkids 4.28%\n",
        "- @schoolrunsam 36,500 followers\n- @packandpeak 210,000\n- @outdoordadjon 27,400\n- @pnwfamilyoutside 61,800\n- @trailmama_pdx 48,200\n- @weekendwanderkids 152,000\n",
    ),
    (
        g("research:s08_final_shortlist"),
        "research/creator-shortlist.md",
        "## Final shortlist\n1. @schoolrunsam\n2. @outdoordadjon\n3. @pnwfamilyoutside\n4. @trailmama_pdx\n\nTotal: $3,150. Reserve: @littlehikersclub.\n",
        "## Final shortlist\n1. @schoolrunsam\n2. @outdoordadjon\n3. @pnwfamilyoutside\n4. @littlehikersclub\n\nTotal: $4,650.\n",
    ),
    (
        g("research:s11_sov"),
        "research/2026-05-14_launch-week_listening-readout.md",
        "| Oakline | 23.4% |\n| Summitra | 38.3% |\n| Halden | 16.6% |\n| Kettle & Pine | 21.7% |\n",
        "| Oakline | 27.5% |\n| Summitra | 36.3% |\n| Halden | 15.7% |\n| Kettle & Pine | 20.5% |\n",
    ),
    (
        g("research:s11_net_sentiment"),
        "research/2026-05-14_launch-week_listening-readout.md",
        "- Oakline: 41.5%\n- Summitra: 20.2%\n- Halden: 26.1%\n- Kettle & Pine: -24.3%\n",
        "- Oakline: 41.5%\n- Summitra: 20.2%\n- Halden: 26.1%\n- Kettle & Pine: 24.3%\n",
    ),
    (
        g("copy:s02_veto_free"),
        "content/messaging/2026-04-08_trailhead-kids_messaging-house.md",
        "- Proof: Leak-resistant FlipSip lid (CL-04).\n",
        "- Proof: Leak-resistant, eco-friendly FlipSip lid.\n",
    ),
    (
        g("copy:s02_sentence_case"),
        "content/messaging/2026-04-08_trailhead-kids_messaging-house.md",
        "## Headline options\n- Cold from first bell to pickup\n- The lid that stays on\n- Built for the school run\n- Small bottle, whole day\n",
        "## Headline options\n- Cold From First Bell\n- The lid that stays on\n- Built for the school run\n- Small bottle, whole day\n",
    ),
    (
        g("copy:s03_limits"),
        "content/email/2026-04-10_trailhead-kids_launch-emails.md",
        "Subject: Something small is coming May 12\nPreheader: Cold for up to 18 hours.\nSubject: Meet Trailhead Kids\nPreheader: A lid that stays shut.\nSubject: Moss, Sky, Poppy or Sand?\nPreheader: 14 oz, $24.\n",
        "Subject: Something small is coming to Oakline this May, and it's for the kids\nPreheader: x\nSubject: Meet Trailhead Kids\nPreheader: y\nSubject: Moss?\nPreheader: z\n",
    ),
    (
        g("copy:s03_one_cta"),
        "content/email/2026-04-10_trailhead-kids_launch-emails.md",
        "## E-mail 1\nCTA: a\n## E-mail 2\nCTA: b\nText link: c\n## E-mail 3\nCTA: d\n",
        "## E-mail 1\nCTA: a\n## E-mail 2\nCTA: b\nCTA: c\n## E-mail 3\nCTA: d\n",
    ),
    (
        g("copy:s07_hook"),
        "content/social/2026-04-22_trailhead-kids_launch-social.md",
        "## Script\nBeat 1: 0:00-0:03\nBeat 2: 0:03-0:20\n",
        "## Script\nBeat 1: 0:00-0:05\nBeat 2: 0:05-0:20\n",
    ),
    (
        g("copy:s07_length"),
        "content/social/2026-04-22_trailhead-kids_launch-social.md",
        "Beat 1: 0:00-0:03\nBeat 2: 0:03-0:20\nBeat 3: 0:20-0:45\n## Instagram caption\nLive 2:00-3:00 PT\n",
        "Beat 1: 0:00-0:03\nBeat 2: 0:03-0:20\nBeat 3: 0:20-0:55\n",
    ),
    (
        g("copy:s07_onscreen"),
        "content/social/2026-04-22_trailhead-kids_launch-social.md",
        "On-screen 1: Upside down. Not a drop.\nOn-screen 2: Still cold at pickup\nOn-screen 3: Colours kids picked\n",
        "On-screen 1: Meet the newest member of the Oakline family\nOn-screen 2: Still cold at pickup\nOn-screen 3: Colours kids picked\n",
    ),
    (
        g("copy:s07_hashtags"),
        "content/social/2026-04-22_trailhead-kids_launch-social.md",
        "Hashtags: #OaklineOutside #TrailheadKids #schoolrun\n",
        "Hashtags: #TrailheadKids #schoolrun #kids #pdx #outdoorkids #hydration\n",
    ),
    (
        g("copy:s10_limits"),
        "content/ads/2026-05-05_tk14_meta_variants.csv",
        "variant_id,angle,headline,primary_text\nA1,lid,The lid that stays shut,Short text.\nA2,lid,Upside down and still dry,Short.\nB1,cold,Cold for up to 18 hours,Still cold.\nB2,cold,Still cold at pickup,Cold.\n",
        "variant_id,angle,headline,primary_text\nA1,lid,The lid that stays shut through the whole school day,Short text.\nA2,lid,b,c\nB1,cold,d,e\nB2,cold,f,g\n",
    ),
    (
        g("copy:s10_sentence_case"),
        "content/ads/2026-05-05_tk14_meta_variants.csv",
        "variant_id,headline\nA1,The lid that stays shut\nA2,Upside down and still dry\nB1,Cold for up to 18 hours\nB2,Still cold at pickup\n",
        "variant_id,headline\nA1,The Lid That Stays Shut\nA2,Upside down and still dry\nB1,Cold for up to 18 hours\nB2,Still cold at pickup\n",
    ),
    (
        g("cobrand:s04_registered_mark"),
        "partners/stridewell/2026-04-14_trail-run-series_joint-brief.md",
        "Partners: Oakline and Stridewell®\nCampaign: Oakline × Stridewell\n",
        "Partners: Oakline and Stridewell\nCampaign: Oakline × Stridewell®\n",
    ),
    (
        g("cobrand:s04_words"),
        "partners/stridewell/2026-04-14_trail-run-series_joint-brief.md",
        "Key message: Three trails, one summer.\n",
        "Key message: Beast mode on the trail.\n",
    ),
    (
        g("cobrand:s09_registered_per_post"),
        "partners/stridewell/2026-05-01_trail-run-series_social-kit.md",
        "## Post 1\nStridewell® and Stridewell\n## Post 2\nStridewell®\n## Post 3\nStridewell® x\n> Stridewell quoted\n",
        "## Post 1\nStridewell® and Stridewell\n## Post 2\nStridewell\n## Post 3\nStridewell®\n",
    ),
    (
        g("cobrand:s09_words"),
        "partners/stridewell/2026-05-01_trail-run-series_social-kit.md",
        "## Post 1\nFor every climb.\n> Lace up, crush the climb.\n",
        "## Post 1\nCrush every climb.\n",
    ),
    (
        g("cobrand:s09_hashtags"),
        "partners/stridewell/2026-05-01_trail-run-series_social-kit.md",
        "Hashtags: #OaklineOutside #TrailRunSeries\n",
        "Hashtags: #TrailRunSeries #raceday\n",
    ),
    (
        g("crisis:s12_stop_use_first"),
        "comms/incidents/2026-05-18_flipsip_holding-statement.md",
        "# FlipSip holding statement\nIntro.\n\n## Statement\n\n### An update\n\nPlease stop using the FlipSip lid for now.\n",
        "# FlipSip holding statement\nPlease stop using the FlipSip lid.\n\n## Statement\n\nWe have received reports.\n",
    ),
    (
        g("crisis:s13_email_limits"),
        "comms/incidents/2026-05-20_flipsip_recall-notice.md",
        "Subject: Safety recall: Trailhead Kids FlipSip lid\nPreheader: Please stop using the lid.\n",
        "Subject: Important safety recall: please stop using your Trailhead Kids FlipSip lid today\nPreheader: ok\n",
    ),
    (
        g("crisis:s18_email_limits"),
        "content/email/2026-06-08_trailhead-kids_relaunch-email.md",
        "Subject: Trailhead Kids is back\nPreheader: A redesigned FlipSip lid, tested before every shipment.\n",
        "Subject: Trailhead Kids is back\nPreheader: " + "x" * 91 + "\n",
    ),
    (
        g("cobrand:s17_limits"),
        "content/email/2026-05-29_trail-run-series_launch-email.md",
        "Subject: Three trails, one summer\nPreheader: It gives back.\n",
        "Subject: Three trails, one summer, and a bottle made for all of them\nPreheader: ok\n",
    ),
    (
        g("cobrand:s17_cobrand_name"),
        "content/email/2026-05-29_trail-run-series_launch-email.md",
        "Hero: Oakline × Stridewell® Trail Run Series\nBody: with Stridewell this summer\n",
        "Hero: Stridewell® × Oakline Trail Run Series\nBody: with Stridewell this summer\n",
    ),
    (
        g("research:s20_sov"),
        "research/2026-06-22_june-relaunch-week_listening-readout.md",
        "- Oakline: 37.0%\n- Summitra: 33.3%\n- Kettle & Pine: 16.7%\n- Halden: 13.0%\n",
        "- Oakline: 38.5%\n- Summitra: 32.4%\n- Kettle & Pine: 16.2%\n- Halden: 12.6%\n",
    ),
    (
        g("crisis:s14_reply_length"),
        "comms/incidents/2026-05-21_flipsip_reply-macros.md",
        "".join(f"Reply: Short reply number {n}.\n" for n in range(5)),
        "".join(f"Reply: Short reply number {n}.\n" for n in range(4)) + "Reply: " + "x" * 151 + "\n",
    ),
]


@pytest.mark.parametrize(("grader", "path", "right", "wrong"), FILE_CASES, ids=[c[0].__name__ for c in FILE_CASES])
def test_file_grader_passes_the_right_workspace_and_fails_the_wrong_one(
    tmp_path: Path, grader: Any, path: str, right: str, wrong: str
) -> None:
    assert grader(_evidence(_workspace(tmp_path / "right", {path: right})))
    assert not grader(_evidence(_workspace(tmp_path / "wrong", {path: wrong})))


def test_file_graders_fail_on_an_empty_workspace(tmp_path: Path) -> None:
    evidence = _evidence(_workspace(tmp_path, {}))
    assert not any(grader(evidence) for grader, *_ in FILE_CASES)


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    seed = tmp_path / "seed"
    seed.mkdir()
    for name in ("00_accounts.yaml", "01_spotify_catalogue.yaml", "02_amazon_catalogue.yaml"):
        shutil.copy(EPISODE / "apps" / name, seed / name)
    apps = AppStore()
    apps.seed_from(seed)
    box = ToolBox(ToolEnv(_workspace(tmp_path, {}), Memory(), apps), resolve_tool_names(["workspace", "spotify", "amazon"]))
    assert box.call("spotify__login", LOGIN).ok and box.call("amazon__login", LOGIN).ok
    return box


def _playlist(box: ToolBox, songs: list[int]) -> None:
    playlist = box.call("spotify__create_playlist", {"title": "Oakline × Stridewell Trail Run Series", "is_public": True}).result[
        "response"
    ]["playlist_id"]
    for song in songs:
        assert box.call("spotify__add_song_to_playlist", {"playlist_id": playlist, "song_id": song}).ok


def _graded(box: ToolBox, grader: Any) -> bool:
    return bool(grader(Evidence([], box.records, box.env.workspace, box.env.memory, GraderResolver(REPO), box.env.apps)))


GOOD_SONGS = [501, 502, 513, 515, 517]


@pytest.mark.parametrize(
    ("grader", "bad_song"), [(g("media:s05_clean_only"), 512), (g("media:s05_radio_edit"), 514), (g("media:s05_no_conflict"), 516)]
)
def test_playlist_graders_want_the_good_version_and_no_bad_one(box: ToolBox, grader: Any, bad_song: int) -> None:
    _playlist(box, GOOD_SONGS)
    assert _graded(box, grader)
    assert box.call("spotify__add_song_to_playlist", {"playlist_id": 2, "song_id": bad_song}).ok
    assert not _graded(box, grader)


def test_playlist_runtime_must_match_the_playlist(box: ToolBox) -> None:
    _playlist(box, GOOD_SONGS)  # 215 + 198 + 211 + 234 + 217 = 1075 s = 17:55
    box.env.workspace.write_text("content/playlists/notes.md", "Total runtime: 17:55\n")
    assert _graded(box, g("media:s05_runtime_stated"))
    box.env.workspace.write_text("content/playlists/notes.md", "Total runtime: 61:24\n")
    assert not _graded(box, g("media:s05_runtime_stated"))


def test_props_cart_graders(box: ToolBox) -> None:
    for product, quantity in ((2103, 2), (2203, 2), (2301, 1), (2502, 1)):
        assert box.call("amazon__add_product_to_cart", {"product_id": product, "quantity": quantity}).ok
    assert box.call("amazon__update_product_quantity_in_cart", {"product_id": 2401, "quantity": 0}).ok
    box.env.workspace.write_text("content/shoots/2026-04-20_props-cart.md", "Cart total: $121.96 before tax.\n")
    assert _graded(box, g("media:s06_two_each")) and _graded(box, g("media:s06_cart_total_stated"))
    assert box.call("amazon__update_product_quantity_in_cart", {"product_id": 2103, "quantity": 1}).ok
    assert not _graded(box, g("media:s06_two_each"))
    assert not _graded(box, g("media:s06_cart_total_stated"))  # the cart now totals $97.96
