import io

import pandas as pd
import pytest

from ranking import ResultsError, read_results, validate_results

HEADER = "task,case,algorithm,metric,value\n"


def _read(text: str) -> pd.DataFrame:
    return read_results(io.StringIO(text))


def test_validate_results_accepts_clean_table_with_extras():
    frame = _read(
        "task,target,case,algorithm,metric,value,team,meta:site\n"
        "T,edema,001,A,DSC,0.9,t1,x\n"
        "T,edema,001,B,DSC,,t2,y\n"
    )
    clean = validate_results(frame)
    assert list(clean["case"]) == ["001", "001"]  # leading zeros kept
    assert clean["value"].iloc[0] == 0.9
    assert pd.isna(clean["value"].iloc[1])  # empty = missing
    assert list(clean["line"]) == [2, 3]


def test_validate_results_missing_column_is_named():
    with pytest.raises(ResultsError) as info:
        validate_results(_read("task,case,algorithm,value\nT,1,A,0.5\n"))
    assert [str(e) for e in info.value.errors] == ["missing required column 'metric'"]


def test_validate_results_unknown_column_is_named():
    with pytest.raises(ResultsError, match="unknown column 'score'"):
        validate_results(_read("task,case,algorithm,metric,value,score\nT,1,A,D,1,2\n"))


def test_validate_results_duplicates_name_both_lines():
    text = HEADER + "T,1,A,DSC,0.5\nT,1,B,DSC,0.6\nT,1,A,DSC,0.7\n"
    with pytest.raises(ResultsError) as info:
        validate_results(_read(text))
    lines = [e.line for e in info.value.errors]
    assert lines == [2, 4]
    assert "also on line(s) 4" in info.value.errors[0].message


def test_validate_results_non_numeric_value_names_line():
    text = HEADER + "T,1,A,DSC,0.5\nT,1,B,DSC,good\n"
    with pytest.raises(ResultsError) as info:
        validate_results(_read(text))
    assert [(e.line, e.message) for e in info.value.errors] == [
        (3, "value 'good' is not a number")
    ]


def test_validate_results_nan_token_is_missing():
    clean = validate_results(_read(HEADER + "T,1,A,DSC,NaN\nT,1,B,DSC,1\n"))
    assert clean["value"].isna().tolist() == [True, False]


def test_validate_results_algorithm_absent_from_task_is_error():
    text = HEADER + "T1,1,A,DSC,0.5\nT1,1,B,DSC,0.6\nT2,1,A,DSC,0.7\n"
    with pytest.raises(ResultsError) as info:
        validate_results(_read(text))
    assert [str(e) for e in info.value.errors] == [
        "task 'T2': algorithm 'B' has no row at all (it did not take part in this task)"
    ]


def test_validate_results_empty_identifier_names_line():
    with pytest.raises(ResultsError) as info:
        validate_results(_read(HEADER + "T,1,A,DSC,0.5\nT,,B,DSC,0.6\n"))
    assert [(e.line, e.message) for e in info.value.errors] == [(3, "empty 'case'")]


def test_results_error_is_value_error():
    assert issubclass(ResultsError, ValueError)
