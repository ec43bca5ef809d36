"""The RobustMIS demo's case-characteristics analysis finds the simulated effects."""

import math

import pytest
from pypdf import PdfReader

from analysis.models import AnalysisRun
from characteristics.models import CaseModelRun
from demo import robustmis_cases
from demo.accounts import ensure_demo_accounts, ensure_demo_call
from demo.load import load_demo_challenges
from demo.story import advance_robustmis
from registry.enums import ChallengeStatus


@pytest.fixture
def demo(db):
    call = ensure_demo_call()
    users = ensure_demo_accounts(call)
    return load_demo_challenges(call, users)[1], users


def test_robustmis_story_ends_with_a_case_characteristics_analysis(demo):
    challenge, users = demo
    registration = advance_robustmis(challenge, users)
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.REGISTERED
    run = CaseModelRun.objects.get(metadata__results__registration=registration)
    assert run.status == "done", run.error
    # The registered design says the test cases carry no context information.
    assert run.exploratory is True
    output = run.output
    assert output["spec"]["algorithms_modelled"] == robustmis_cases.TEAMS[:5]
    fixed = {f["term"]: f for f in output["models"][0]["fixed"]}
    for name, (_, effect) in robustmis_cases.EFFECTS.items():
        term = fixed[name]
        # every 95 % interval holds the true odds ratio (a fixed seed: no flake)
        assert term["or_ci_low"] < math.exp(effect) < term["or_ci_high"], name
    assert fixed["instrument_overlap"]["or_ci_low"] > 1
    assert fixed["overexposed_instrument"]["or_ci_high"] < 1
    analysis = AnalysisRun.objects.get(results__registration=registration)
    assert analysis.status == "done", analysis.error
    with analysis.report.open("rb") as pdf:
        text = "".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert "Strengths and weaknesses: case characteristics" in text
    assert "instrument_overlap raises the odds of failure" in text
    # published, with its deviations from the registered design for all to see
    (publication,) = registration.publications.all()
    assert publication.run == analysis
    assert len(analysis.deviations) > 0
    assert advance_robustmis(challenge, users) == registration  # idempotent
    assert CaseModelRun.objects.count() == 1
    assert registration.publications.count() == 1
