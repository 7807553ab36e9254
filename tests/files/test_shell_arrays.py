"""Bash arrays in launch scripts: ``ARGS=(...)`` and ``"${ARGS[@]}"`` (issue #33's false
positive: a script keeping its flags in an array was reported as an unset variable).

Expected words are what bash 5 prints for the same script (``printf '%s\\n' ...``)."""

from __future__ import annotations

import pytest

from cgconfig.errors import InputError
from cgconfig.files.script_reader import read_script


def _words(text: str, **variables: str) -> list[list[str]]:
    statements, _ = read_script(text, first_line=1, where="t.sh", variables=variables)
    return [[w.text for w in s.words] for s in statements]


def test_a_quoted_at_expansion_gives_each_element_its_own_word() -> None:
    text = 'ARGS=(--tp 8 "--model-path" "a b")\nrun "${ARGS[@]}" --x\n'
    assert _words(text)[-1] == ["run", "--tp", "8", "--model-path", "a b", "--x"]


def test_star_and_plain_name_and_index_and_count() -> None:
    text = ('A=(x "y z" w)\n'
            'run "${A[*]}" $A ${A[1]} ${#A[@]} "pre${A[@]}post"\n')
    assert _words(text)[-1] == ["run", "x y z w", "x", "y", "z", "3", "prex", "y z", "wpost"]


def test_multi_line_arrays_with_comments_and_appends() -> None:
    text = ("declare -a ARGS=(\n  --tp 8   # tensor parallel\n  --dp 2\n)\n"
            "ARGS+=(--enable-dp-attention)\n"
            "python3 -m sglang.launch_server \"${ARGS[@]}\"\n")
    assert _words(text)[-1] == ["python3", "-m", "sglang.launch_server", "--tp", "8", "--dp",
                                "2", "--enable-dp-attention"]


def test_elements_expand_the_variables_known_and_unknown_ones_leave_the_array_unknown() -> None:
    statements, _ = read_script('A=(--model "$M")\nrun "${A[@]}"\n', first_line=1,
                                where="t.sh", variables={"M": "m1"})
    assert [w.text for w in statements[-1].words] == ["run", "--model", "m1"]
    statements, _ = read_script('A=(--model "$M")\nrun "${A[@]}"\n', first_line=1,
                                where="t.sh", variables={})
    assert statements[-1].words[-1].unresolved == ("A",)


def test_a_scalar_read_as_an_array_is_one_element() -> None:
    assert _words('S="a b"\nrun "${S[@]}" ${S[0]}\n')[-1] == ["run", "a b", "a", "b"]


@pytest.mark.parametrize("text", ["A=(--tp 8\n", "A=(--tp ; 8)\n"])
def test_a_broken_array_is_one_error_line(text: str) -> None:
    with pytest.raises(InputError) as caught:
        _words(text)
    assert "t.sh:1" in str(caught.value) or "t.sh:" in str(caught.value)
