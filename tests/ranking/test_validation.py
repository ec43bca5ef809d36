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


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        pytest.param(
            "task,case,algorithm,value\nT,1,A,0.5\n",
            "line 1: missing required column 'metric'; the header has 'task', "
            "'case', 'algorithm', 'value'; expected at least "
            "'task,case,algorithm,metric,value'",
            id="missing column",
        ),
        # one problem, reported once, naming both lines
        pytest.param(
            HEADER + "T,1,A,DSC,0.5\nT,1,B,DSC,0.6\nT,1,A,DSC,0.7\n",
            "line 2: the same result (task='T', case='1', algorithm='A', "
            "metric='DSC') is on lines 2 and 4; expected one row per (task, target, "
            "case, algorithm, metric): keep one, or tell the rows apart (a 'target' "
            "column for sub-tasks)",
            id="duplicate result",
        ),
        pytest.param(
            '"","task","case","algorithm","metric","value"\n'
            '"1","T","1","A","DSC",0.5\n',
            "line 1: a column has no name (R's write.csv writes row numbers so: "
            "use write.csv(..., row.names = FALSE)); expected only task, case, "
            "algorithm, metric, value and the optional target, team, submissions, "
            "interaction, meta:<name>: name it or remove it",
            id="R row names",
        ),
        pytest.param(
            HEADER + "T1,1,A,DSC,0.5\nT1,1,B,DSC,0.6\nT2,1,A,DSC,0.7\n",
            "task 'T2': algorithm 'B' has no row at all (it has rows in 'T1'); "
            "expected every algorithm in every task: add its rows with empty values "
            "to mark its results missing, or check the spelling of its name",
            id="algorithm absent from a task",
        ),
    ],
)
def test_validate_results_names_the_one_problem(text, problem):
    with pytest.raises(ResultsError) as info:
        validate_results(_read(text))
    assert [str(e) for e in info.value.errors] == [problem]


def test_validate_results_unknown_column_is_named():
    with pytest.raises(ResultsError, match="unknown column 'score'"):
        validate_results(_read("task,case,algorithm,metric,value,score\nT,1,A,D,1,2\n"))


def test_validate_results_non_numeric_value_names_line():
    text = HEADER + "T,1,A,DSC,0.5\nT,1,B,DSC,good\n"
    with pytest.raises(ResultsError) as info:
        validate_results(_read(text))
    assert [(e.line, e.message) for e in info.value.errors] == [
        (
            3,
            "value 'good' is not a number; expected a number such as 0.93, or an "
            "empty cell for a missing result",
        )
    ]


def test_validate_results_nan_token_is_missing():
    clean = validate_results(_read(HEADER + "T,1,A,DSC,NaN\nT,1,B,DSC,1\n"))
    assert clean["value"].isna().tolist() == [True, False]


def test_validate_results_empty_identifier_names_line():
    with pytest.raises(ResultsError) as info:
        validate_results(_read(HEADER + "T,1,A,DSC,0.5\nT,,B,DSC,0.6\n"))
    assert [(e.line, e.message) for e in info.value.errors] == [
        (3, "empty 'case'; expected a case name or identifier")
    ]
    with pytest.raises(ResultsError) as info:
        validate_results(_read(HEADER + "T,1,,DSC,0.5\nT,1,B,DSC,0.6\n"))
    assert (info.value.errors[0].line, info.value.errors[0].message) == (
        2,
        "empty 'algorithm'; expected an algorithm name or identifier",
    )


def test_results_error_is_value_error():
    assert issubclass(ResultsError, ValueError)


def test_validate_results_accepts_numeric_value_column_from_code():
    frame = pd.DataFrame(
        {
            "task": "T",
            "case": ["1", "1"],
            "algorithm": ["A", "B"],
            "metric": "DSC",
            "value": [0.5, float("nan")],
        }
    )

    clean = validate_results(frame)

    assert clean["value"].iloc[0] == 0.5
    assert pd.isna(clean["value"].iloc[1])


def test_read_results_and_validate_keep_file_lines_across_blank_lines():
    frame = _read(HEADER + "T,1,A,DSC,0.5\n\nT,1,B,DSC,0.6\n")

    clean = validate_results(frame)

    assert list(clean["line"]) == [2, 4]
