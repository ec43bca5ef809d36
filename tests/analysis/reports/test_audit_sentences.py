"""The audit's conclusions about a metric's ranking: an alternative scheme of
another metric is named as such (the MSD report judged the NSD ranking by
"aggregate-then-rank (median) of DSC" as if it were only another method)."""

from __future__ import annotations

from analysis.reports.data import audit_findings
from ranking import run_analysis


def test_msd_alternatives_of_the_other_metric_are_named_as_another_metric():
    from demo.story import MSD_SCHEME, simulated_msd_results

    scheme = {**MSD_SCHEME, "uncertainty": {"bootstrap": 0, "seed": 1}}
    output = run_analysis(simulated_msd_results(), scheme).to_json_dict()
    sentences = [s for s in audit_findings(output) if " under " in s]
    # the NSD podium of the Mystery phase changes under a DSC alternative
    assert any("(NSD)" in s and "of DSC" in s for s in sentences)
    for sentence in sentences:
        key = sentence.split("(", 1)[1].split(")", 1)[0]  # "Task X (NSD): ..."
        other = "DSC" if key == "NSD" else "NSD"
        if f"of {other}" in sentence:
            assert f"another metric than {key}, not only another method" in sentence
        else:
            assert "another metric" not in sentence
