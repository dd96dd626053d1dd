"""Answer caps per role: flags, sweep-config keys, and runs stored before caps existed."""

from __future__ import annotations

import pytest

from proactive_bench.campaign.sweep import SweepConfigError, validate_sweep_config
from proactive_bench.episode.launch import RunSpec, run_spec
from proactive_bench.llm.caps import UNCAPPED, MaxTokens, parse_max_tokens
from proactive_bench.store import Run


def test_flags_name_a_role_and_a_positive_number() -> None:
    assert parse_max_tokens(["judge=64", "agent = 100"]) == {"judge": 64, "agent": 100}
    for bad, reason in (
        (["judge"], "expected ROLE=N"),
        (["critic=3"], "ROLE one of"),
        (["judge=lots"], "whole number"),
        (["judge=0"], "at least 1"),
    ):
        with pytest.raises(ValueError, match=reason):
            parse_max_tokens(bad)


def test_sweep_config_keys_set_caps_and_reject_unknown_roles() -> None:
    config = validate_sweep_config({"models": ["scripted:reference"], "max_tokens": {"judge": 64}, "call_timeout": 30}, "sweep.yaml")
    assert config.max_tokens == MaxTokens(judge=64) and config.max_tokens.agent == 4096 and config.call_timeout == 30
    with pytest.raises(SweepConfigError, match="sweep.yaml: max_tokens.critic"):
        validate_sweep_config({"models": ["scripted:reference"], "max_tokens": {"critic": 64}}, "sweep.yaml")


def test_a_run_stored_before_caps_existed_replays_uncapped() -> None:
    legacy = {"persona": "p", "model": "scripted:reference", "data_root": "."}
    assert run_spec(Run(persona="p", model="m", user_backend="rules", data_root=".", workspace="w", config=legacy)).max_tokens == UNCAPPED
    stored = RunSpec(**legacy).model_dump(mode="json")
    assert (
        run_spec(Run(persona="p", model="m", user_backend="rules", data_root=".", workspace="w", config=stored)).max_tokens == MaxTokens()
    )
