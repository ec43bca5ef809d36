"""Large CSV files are read by pandas' C parser (``_csv_by_pandas``): the same
table as the Python reader (``_csv_by_python``), or no table and the Python
reader takes over, so that every problem is still named by its line there."""

import io

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranking import ResultsError, _validation, read_results, read_table
from ranking._validation import _csv_by_pandas, _csv_by_python, _parse_csv

HEADER = "task,case,algorithm,metric,value"
ROW = "T,007,A,DSC,0.5"


def _table(raw):
    """Everything a reader's table holds, in comparable form."""
    return {
        "header": raw.header,
        "cells": raw.matrix.tolist(),
        "cell types": {type(c) for c in raw.matrix.ravel().tolist()},
        "shape": raw.matrix.shape,
        "dtype": raw.matrix.dtype,
        "lines": raw.lines.tolist(),
        "lines dtype": raw.lines.dtype,
        "columns": {name: c.tolist() for name, c in raw.columns.items()},
        "source": raw.source,
    }


def _outcome(text, *, pandas_from):
    """`_parse_csv`'s table or error when pandas reads from `pandas_from` chars."""
    saved = _validation._PANDAS_CSV_CHARS
    _validation._PANDAS_CSV_CHARS = pandas_from
    try:
        return _table(_parse_csv(text, "r.csv"))
    except ResultsError as exc:
        return (str(exc), exc.total, exc.errors)
    finally:
        _validation._PANDAS_CSV_CHARS = saved


def _lines(*lines, end="\n"):
    return end.join(lines)


READ_BY_PANDAS = {
    "plain": _lines(HEADER, ROW, "T,008,A,DSC,0.6", ""),
    "no final line break": _lines(HEADER, ROW, "T,008,A,DSC,0.6"),
    "CRLF": _lines(HEADER, ROW, "", "T,008,A,DSC,0.6", "", end="\r\n"),
    "blank lines": _lines(HEADER, "", ROW, "", "", "T,008,A,DSC,", "", ""),
    "whitespace lines": _lines(HEADER, "   ", ROW, " \t ", "T,1,B,DSC,1", "\x0b\x0c"),
    "comma lines": _lines(HEADER, ",,,,", ROW, ",,", " , ,\t,,", ",", ""),
    "unicode whitespace lines": _lines(HEADER, "\xa0,\u3000,,\x85,\x1c", ROW, "\u2003"),
    "only the header": _lines(HEADER, ""),
    "only the header and blank lines": _lines(HEADER, "", " ", ",,,,", ""),
    "cells with spaces": _lines(" task , case ,algorithm, metric ,", " T , 1 ,A, B, "),
    "empty cells": _lines(HEADER, "T,,A,,", ",1,,DSC,0.1", ""),
    "unicode": _lines(HEADER, "Tâche,cas-é,算法,Dice ✓,0.5", "\u2028,x,y,z,1"),
    "control characters": _lines(HEADER, "T\x1a,\x7f,A\x1c,M,1", ""),
    "duplicate and unknown names": _lines("task,task,a,,case", "1,2,3,4,5", ""),
    "one column": _lines("task", "T", "", "U", ""),
    "whitespace header": _lines(",  ,", "1,2,3", ""),
    "R write.csv": _lines(
        '"task","case","algorithm","metric","value"',
        '"T","007","A","DSC",0.5',
        '"T","008","A","DSC",NA',
        "",
    ),
    "R write.csv with row names": _lines(
        '"","task","case","algorithm","metric","value"',
        '"1","T","007","A","DSC",0.5',
        '"2",NA,"008","A B","DSC",-1e-04',
    ),
    "quoted, CRLF": _lines('"task",case', '"T",1', "", '"U","2"', "", end="\r\n"),
    "quoted empty strings": _lines(HEADER, 'T,"",A,"",', '"",1,"","",""', ""),
    "doubled quotes": _lines(HEADER, 'T,"say ""hi""",A,"""",0.5', '"""""",1,"a""",,'),
    "quoted commas": _lines(HEADER, 'T,"1,5",A,"a, b",0.5', '",",",,",",",",",","'),
    "quoted spaces": _lines('" task ", case ,', '" T "," ","\t1 "'),
    "quoted blank lines": _lines(HEADER, '"",""', ROW, '" ",,,,"\t"', '"\xa0"', ""),
    "quotes only in the last cell": _lines(HEADER, ROW, 'T,8,A,DSC,"0.6"'),
}


@pytest.mark.parametrize("text", READ_BY_PANDAS.values(), ids=READ_BY_PANDAS)
def test_pandas_reads_the_python_readers_table(text):
    fast = _csv_by_pandas(text, "r.csv")

    assert fast is not None
    assert _table(fast) == _table(_csv_by_python(text, "r.csv"))


READ_BY_PYTHON = {
    "quoted line break": _lines(HEADER, 'T,"case\n1",A,DSC,0.5', ROW, ""),
    "quoted CRLF": _lines(HEADER, 'T,"case\r\n1",A,DSC,0.5', ROW, "", end="\r\n"),
    "quoted line break in a blank row": _lines(HEADER, ROW, '" \n ",,,,', ""),
    "quote inside a bare cell": _lines(HEADER, 'T,ab"c",A,DSC,0.5', ""),
    "quote ending a bare cell": _lines(HEADER, 'T,ab",A,DSC,0.5', '"T",1,A,DSC,1'),
    "space before an opening quote": _lines(HEADER, 'T, "a",A,DSC,0.5', ""),
    "space after a closing quote": _lines(HEADER, 'T,"a" ,A,DSC,0.5', ""),
    "text after a closing quote": _lines(HEADER, 'T,"a"b,A,DSC,0.5', ""),
    "unbalanced quote at the end": _lines(HEADER, ROW, 'T,"8,A,DSC,0.6'),
    "unbalanced quote then lines": _lines(HEADER, 'T,"8,A,DSC,0.6', ROW, ROW, ""),
    "too few fields with a quoted comma": _lines(HEADER, ROW, 'T,"8,A",DSC,0.6', ""),
    "too many fields with a quoted cell": _lines(HEADER, 'T,"8",A,DSC,0,6', ""),
    "quoted comma alone in a row": _lines(HEADER, ROW, '" , "', ""),
    "lone carriage return": _lines(HEADER, ROW, "T,8,A,DSC,0.6", end="\r"),
    "carriage return in a cell": _lines(HEADER, "T,1\r2,A,DSC,0.5", ""),
    "second byte-order mark": "\ufeff" + _lines(HEADER, ROW, ""),
    "empty first line": _lines("", HEADER, ROW, ""),
    "NUL": _lines(HEADER, "T,1\x00,A,DSC,0.5", ""),
    "too few fields": _lines(HEADER, ROW, "T,8,A,0.6", ""),
    "too many fields": _lines(HEADER, "T,8,A,DSC,0,6", ROW, ""),
    "too many commas in a blank line": _lines(HEADER, ROW, ",,,,,,,", ""),
    "lone surrogate": _lines(HEADER, "T,\udc80,A,DSC,0.5", ""),
}


@pytest.mark.parametrize("text", READ_BY_PYTHON.values(), ids=READ_BY_PYTHON)
def test_python_reads_what_pandas_might_read_otherwise(text):
    assert _csv_by_pandas(text, "r.csv") is None
    assert _outcome(text, pandas_from=0) == _outcome(text, pandas_from=10**9)


def test_wrong_field_counts_are_named_by_the_python_reader():
    text = _lines(HEADER, ROW, "", "T,8,A,0.6", "T,9,A,DSC,0,6", "")

    error = _outcome(text, pandas_from=0)

    assert error == _outcome(text, pandas_from=10**9)
    assert [str(e) for e in error[2]] == [
        "line 4: found 4 fields, expected 5 (one per header column); a text "
        "containing a comma must be in double quotes",
        "line 5: found 6 fields, expected 5 (one per header column); a decimal "
        "comma (0,93) splits a value in two: write 0.93",
    ]


def test_a_cell_over_csvs_field_limit_is_named_by_its_line():
    """csv.reader refuses a cell over its field size limit (131 072
    characters): a ResultsError naming the line, by either reader (the C
    parser would read it, so such a text goes to the Python reader)."""
    text = _lines(HEADER, ROW, "", "T,8," + "x" * 200_000 + ",DSC,0.6", ROW, "")

    error = _outcome(text, pandas_from=0)

    assert error == _outcome(text, pandas_from=10**9)
    assert [str(e) for e in error[2]] == [
        "line 4: the line cannot be read as CSV (field larger than field limit "
        "(131072)); expected short cells: identifiers, numbers and brief texts"
    ]


def test_small_texts_and_texts_without_pandas_loaded_are_read_by_python(
    monkeypatch,
):
    calls = []
    monkeypatch.setattr(_validation, "_csv_by_pandas", lambda *a: calls.append(a))
    text = _lines(HEADER, ROW, "")

    _parse_csv(text, "")
    monkeypatch.setattr(_validation, "_PANDAS_CSV_CHARS", 0)
    monkeypatch.delitem(_validation.sys.modules, "pandas")
    _parse_csv(text, "")

    assert calls == []


@pytest.mark.parametrize(
    "data",
    [
        ("\ufeff" + _lines(HEADER, ROW, "", "T,8,A,DSC,", "", end="\r\n")).encode(),
        _lines(HEADER, ROW, "T,8,A,DSC,0.6", "").encode(),
        READ_BY_PANDAS["R write.csv"].encode(),
    ],
    ids=["BOM, CRLF, blank lines", "plain", "R write.csv"],
)
def test_read_results_is_the_same_frame_by_either_reader(monkeypatch, data):
    by_python = read_results(io.BytesIO(data))
    monkeypatch.setattr(_validation, "_PANDAS_CSV_CHARS", 0)

    by_pandas = read_results(io.BytesIO(data))

    pd.testing.assert_frame_equal(by_pandas, by_python)
    assert list(by_pandas.attrs) == list(by_python.attrs)
    assert list(by_pandas.attrs.get("lines", ())) == list(
        by_python.attrs.get("lines", ())
    )


# Characters that matter to one reader or the other: separators, quotes, line
# breaks, whitespace str.strip() removes (ASCII, Unicode, control), other text.
_CHARS = st.sampled_from(
    [
        *',,, \t""\r\n',
        '""',
        '","',
        "\r\n",
        *"\xa0\x1c\x0b\x85\u2028\u3000\ufeffa0é算#';\\\x1a",
    ]
)
_LINES = st.lists(st.lists(_CHARS, max_size=12).map("".join), max_size=8)


@settings(max_examples=300, deadline=None)
@given(
    lines=_LINES,
    end=st.sampled_from(["\n", "\r\n"]),
    final=st.booleans(),
)
def test_either_reader_gives_the_same_table_or_error(lines, end, final):
    text = _lines(HEADER, *lines, end=end) + (end if final else "")

    assert _outcome(text, pandas_from=0) == _outcome(text, pandas_from=10**9)


_BARE_CHARS = _CHARS.filter(lambda c: not set(c) & set(',"\r\n'))
_CELLS = st.lists(_BARE_CHARS, max_size=4).map("".join)
_ROWS = st.lists(
    st.lists(_CELLS, min_size=5, max_size=5) | st.lists(st.just(" "), max_size=5),
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(rows=_ROWS)
def test_pandas_reads_tables_without_quotes_as_python_does(rows):
    text = _lines(HEADER, *(",".join(row) for row in rows), "")
    fast = _csv_by_pandas(text, "")

    assert fast is not None
    assert _table(fast) == _table(_csv_by_python(text, ""))


_QUOTED_CELLS = st.lists(
    _CHARS.filter(lambda c: c not in ("\r", "\n", "\r\n")), max_size=4
).map(lambda chars: '"' + "".join(chars).replace('"', '""') + '"')


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.lists(_QUOTED_CELLS | _CELLS, min_size=5, max_size=5)))
def test_pandas_reads_tables_with_quoted_cells_as_python_does(rows):
    text = _lines(HEADER, *(",".join(row) for row in rows), "")
    fast = _csv_by_pandas(text, "")

    assert fast is not None
    assert _table(fast) == _table(_csv_by_python(text, ""))


def _checked(text, *, pandas_from, import_from):
    """`read_table`'s checked table (or error) with the given size thresholds."""
    import numpy as np

    saved = _validation._PANDAS_CSV_CHARS, _validation._PANDAS_IMPORT_CHARS
    _validation._PANDAS_CSV_CHARS = pandas_from
    _validation._PANDAS_IMPORT_CHARS = import_from
    try:
        table = read_table(io.BytesIO(text.encode()))
    except ResultsError as exc:
        return (str(exc), exc.total, exc.errors)
    finally:
        _validation._PANDAS_CSV_CHARS, _validation._PANDAS_IMPORT_CHARS = saved
    return {
        "codes": {k: v.tolist() for k, v in table.codes.items()},
        "categories": table.categories,
        "value": np.asarray(table.value).tobytes(),
        "line": table.line.tolist(),
        "extras": {k: list(v) for k, v in table.extras.items()},
    }


@pytest.mark.parametrize("name", sorted(READ_BY_PANDAS))
def test_read_table_with_key_columns_as_categories_is_the_python_readers_table(
    name,
):
    # A very large text is read by pandas with the keys as categories (no text
    # object per cell); the checked table must be the Python reader's.
    text = READ_BY_PANDAS[name]
    by_python = _checked(text, pandas_from=10**9, import_from=10**9)
    by_pandas = _checked(text, pandas_from=0, import_from=0)
    assert by_pandas == by_python


def test_targets_extras_and_problems_read_alike_by_either_reader():
    text = _lines(
        "task,target,case,algorithm,metric,value,team",
        'T," liver",1,A,DSC,0.5,x',
        "T,liver,2,A,DSC,,y",
        "T,tumour,1,A,DSC,0.25,x",
        "",
        "T,tumour,1,A,DSC,0,5,",  # a decimal comma: one field too many
    )
    by_python = _checked(text, pandas_from=10**9, import_from=10**9)
    assert by_python[2][0].line == 6
    assert _checked(text, pandas_from=0, import_from=0) == by_python
    fixed = text.replace("0,5,", "0.5,z").replace(
        "T,tumour,1,A,DSC,0.5", "T,t2,1,A,DSC,0.5"
    )
    assert isinstance(_checked(fixed, pandas_from=10**9, import_from=10**9), dict)
    assert _checked(fixed, pandas_from=0, import_from=0) == _checked(
        fixed, pandas_from=10**9, import_from=10**9
    )


def test_large_tables_values_are_read_as_numbers_by_pandas():
    text = _lines(HEADER, ROW, "", "T,008,A,DSC,NA", 'T,009,A,DSC,"1e-3"', "")

    raw = _csv_by_pandas(text, "r.csv", keep_text=False)

    assert raw.columns["value"].dtype == "float64"  # no text object per value
    assert raw.columns["value"].tolist()[::2] == [0.5, 0.001]
    assert _checked(text, pandas_from=0, import_from=0) == _checked(
        text, pandas_from=10**9, import_from=10**9
    )


@pytest.mark.parametrize(
    "cell",
    ["value", " value", "inf", "-Infinity", "1e999", "good", "1_000", "0,5", " NA"],
)
def test_values_pandas_cannot_read_as_numbers_are_checked_as_text(cell):
    # the header's own text as a value, infinities and texts pandas does not
    # read as numbers: the cells are read as text and named as by Python
    quoted = f'"{cell}"' if "," in cell else cell
    text = _lines(
        "task,case,algorithm,metric,value", "T,1,A,DSC,0.5", f"T,2,A,DSC,{quoted}"
    )

    by_pandas = _checked(text, pandas_from=0, import_from=0)

    assert by_pandas == _checked(text, pandas_from=10**9, import_from=10**9)


_NUMBER_TEXTS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.tuples(st.floats(allow_nan=False, allow_infinity=False), st.integers(0, 25)).map(
        lambda t: f"{t[0]:.{t[1]}e}"
    ),
    st.from_regex(
        r"[+-]?[0-9]{0,30}\.?[0-9]{0,30}([eE][+-]?[0-9]{1,3})?", fullmatch=True
    ),
    st.from_regex(r"[ \t]?[0-9.eE+-]{1,6}[ \t]?", fullmatch=True),
    st.sampled_from(
        [
            "",
            "NA",
            "na",
            "Na",
            "N/A",
            "n/a",
            "nan",
            "NaN",
            "NAN",
            "-nan",
            " NA ",
            "inf",
            "-Infinity",
            "1e999",
            "1e-999",
            "2.4703282292062328e-324",
            "1_000",
            "\u0661",
            "\xa01",
            "0x10",
            "1.7976931348623159e308",
            "9007199254740993",
            "0." + "0" * 300 + "1",
            "1" * 400,
            "x",
        ]
    ),
)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(_NUMBER_TEXTS, min_size=1, max_size=6))
def test_values_read_by_pandas_are_pythons_floats(values):
    """pandas' number parser and Python's float give the same doubles (both
    correctly rounded), or pandas gives up and the values are read as text:
    the checked table (values compared as bytes) or error is the same."""
    rows = [f"T,{i},A,DSC,{v}" for i, v in enumerate(values)]
    text = _lines(HEADER, *rows, "")

    by_pandas = _checked(text, pandas_from=0, import_from=0)

    assert by_pandas == _checked(text, pandas_from=10**9, import_from=10**9)
