"""The report of the cross-validation bias simulation (``evalreport simulate``): Forman & Scholz (2010),
section 4, re-run, with its Figures 5-8."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from evalreport._atomic import atomic_dir
from evalreport.report.build import Stages, execute_and_render, versions
from evalreport.report.report_meta import created
from evalreport.report.write import write_frames

__all__ = ["build_simulation_report"]


def build_simulation_report(out_dir, *, repetitions: int = 20_000, seed: int = 0, formats=("html", "pdf"),
                            engine: str = "auto", command: str | None = None, progress: bool = True) -> dict[str, Path]:
    """Re-run the bias simulation of Forman & Scholz (2010), section 4, and render its Figures 5-8."""
    from evalreport.analyses import simulation

    out_dir = Path(out_dir)
    stages = Stages(progress)
    with atomic_dir(out_dir) as staging:
        tables = staging / "tables"
        tables.mkdir()
        with stages.stage(f"simulating 10-fold cross-validation, {repetitions:,} repetitions per setting"):
            results = pd.concat([
                simulation.run(prevalences=simulation.FIG5_PREVALENCES, f_values=(simulation.FIG5_F,),
                               repetitions=repetitions, seed=seed),
                simulation.run(prevalences=simulation.PANELS, f_values=simulation.F_VALUES,
                               repetitions=repetitions, seed=seed),
            ], ignore_index=True).drop_duplicates(["stratified", "prevalence", "f_true", "estimator"])
            frames = simulation.figure_frames(results)
        write_frames(tables, {**frames, "simulation": results})
        pooled_rows = results[results["estimator"] == "pooled"]
        worst = pooled_rows.loc[pooled_rows["rel_bias"].abs().idxmax()]
        pooled = abs(worst["rel_bias"])
        meta = {"title": "Cross-validated F-measure: bias of five estimators", "seed": seed,
                "repetitions": repetitions,
                "simulation_note": (f"{repetitions:,} repetitions per setting (the paper used 1,000,000), seed {seed}. "
                                    f"Largest |relative bias| of F_tp,fp (pooled) over all settings: {pooled:.4f} "
                                    f"(Monte Carlo standard error {worst['rel_bias_se']:.4f}, i.e. "
                                    f"{pooled / max(worst['rel_bias_se'], 1e-300):.1f} SE; rel_bias_se in "
                                    "simulation.csv for every setting)."),
                "provenance": {"command": command or "", "versions": versions(),
                               "created": created()}}
        (tables / "report.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        paths = execute_and_render(staging, ["simulation"], title=meta["title"], formats=formats, engine=engine,
                                    stages=stages, subtitle="Forman & Scholz (2010), section 4, re-run")
    out = {fmt: out_dir / Path(p).name for fmt, p in paths.items()}
    out.update(tables=out_dir / "tables", notebooks=out_dir / "notebooks")
    return out
