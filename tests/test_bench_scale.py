"The scale suite's plan of fits (no fit is run: `measure_fit` is replaced by a recorder)."

import mlc_lit.bench.scale as scale


def _plan(monkeypatch, **kw):
    calls = []

    def fake(n, *, scale, chunk_rows, scheduler):
        calls.append((n, scale, chunk_rows, scheduler))
        return dict(
            fit_s=1.0, fit_cpu_s=1.0, peak_MiB=1.0, cg_iter=1, p_at_1=1.0, p_at_3=1.0, p_at_5=1.0, p_at_1_popular=0.5
        )

    monkeypatch.setattr(scale, "measure_fit", fake)
    rows = scale.run(pairwise=(), **kw)
    return calls, rows


def test_default_plan_fits_each_size_then_the_levels_and_the_last_level_on_the_cluster(monkeypatch):
    calls, rows = _plan(monkeypatch)
    assert calls == [
        (6000, 0.01, 3000, "threads"),
        (12000, 0.01, 3000, "threads"),
        (24000, 0.01, 3000, "threads"),
        (24000, 0.01, 3000, "local_cluster"),
        (80000, 1 / 30, 8000, "threads"),
        (240000, 0.1, 12000, "threads"),
        (240000, 0.1, 12000, "local_cluster"),
    ]
    assert [r["dataset"] for r in rows][-3:] == ["lshtc-0.0333", "lshtc-0.1", "lshtc-0.1"]


def test_quick_plan_has_no_levels(monkeypatch):
    calls, _ = _plan(monkeypatch, quick=True)
    assert calls == [
        (2000, 0.002, 2000, "threads"),
        (4000, 0.002, 2000, "threads"),
        (4000, 0.002, 2000, "local_cluster"),
    ]
