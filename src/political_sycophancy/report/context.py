"""Settings of one analysis run, read by the section builders (their signature is fixed)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class AnalysisOptions:
    bootstrap_draws: int = 2000
    sign_flip_draws: int = 10_000
    seed: int = 20260
    mixed_spec: str = "crossed"  # crossed, paper or both
    mixed_engine: str = "reml"  # reml or statsmodels
    mixed_conditions: str = "focal"  # focal (N, C3L, C3R) or all
    mixed_rows: str = "all"  # all, or paired (pairs answered under N and another condition)
    power_effect: float | None = None
    alpha: float = 0.05
    power: float = 0.8


OPTIONS = AnalysisOptions()


def set_options(options: AnalysisOptions) -> None:
    global OPTIONS
    OPTIONS = options


def current() -> AnalysisOptions:
    return OPTIONS
