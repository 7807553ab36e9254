"""Shell scripts read as the shell splits them: quoting (checked against shlex in POSIX mode),
statements, expansions, arithmetic, here-documents, assignments."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cgconfig.errors import InputError
from cgconfig.files.launch import find_launches
from cgconfig.files.script_reader import read_script


def _words(text: str, **variables: str) -> list[list[str]]:
    statements, _ = read_script(text, first_line=1, where="t.sh", variables=variables)
    return [[w.text for w in s.words] for s in statements]


# Words without operators or expansions: the same split shlex makes in POSIX mode. (A "#"
# inside a word is where they differ: shlex starts a comment there, the shell does not, see
# test_a_hash_inside_a_word_is_not_a_comment; the pieces put "#" after a blank only.)
_PIECES = st.sampled_from(["a", "b-c", "--tp", "8", "'x y'", '"p q"', "\\ ", "'", '"', "=",
                           "it\\'s", '"a\\"b"', "''", '""', " ", "  ", "\t", " #c"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=12))
def test_words_match_shlex_in_posix_mode(pieces: list[str]) -> None:
    text = "".join(pieces)
    try:
        expected = shlex.split(text, comments=True, posix=True)
    except ValueError:
        with pytest.raises(InputError):
            _words(text)
        return
    got = _words(text)
    assert [w for s in got for w in s] == expected


def test_a_hash_inside_a_word_is_not_a_comment() -> None:
    assert _words("x a#b #c") == [["x", "a#b"]]


def test_statements_split_on_operators_and_newlines() -> None:
    assert _words("a 1; b 2 && c || d | e & f\ng") == [
        ["a", "1"], ["b", "2"], ["c"], ["d"], ["e"], ["f"], ["g"]]


def test_continuations_comments_and_redirections() -> None:
    text = "vllm serve M \\\n  --tp 2 > log 2>&1 & # a comment\n"
    assert _words(text) == [["vllm", "serve", "M", "--tp", "2"]]
    # as in the shell, a comment line inside a continued command ends it there
    text = "vllm serve M \\\n  # a comment\n  --tp 2\n"
    assert _words(text) == [["vllm", "serve", "M"], ["--tp", "2"]]


def test_expansions() -> None:
    assert _words("x $A ${A} ${B:-d} ${A:+set} \"$A b\" '$A' ${#A}", A="v") == [
        ["x", "v", "v", "d", "set", "v b", "$A", "1"]]
    assert _words("x $((2 * (3 + 4) / 2 % 5)) $((-7 / 2)) $((A * 4))", A="3") == [
        ["x", "2", "-3", "12"]]
    assert _words("x ${P##*/} ${P%/*}", P="org/model") == [["x", "model", "org"]]


def test_unknown_values_stay_as_written_and_are_named() -> None:
    statements, _ = read_script("run --tp $TP --host $(hostname)", first_line=3, where="t",
                                variables={})
    words = statements[0].words
    assert [w.text for w in words] == ["run", "--tp", "$TP", "--host", "$(hostname)"]
    assert words[2].unresolved == ("TP",) and words[4].unresolved == ("$(hostname)",)
    assert all(w.line == 3 for w in words)


def test_unquoted_expansion_splits_into_fields() -> None:
    assert _words("x $A", A="--tp 2") == [["x", "--tp", "2"]]
    assert _words('x "$A"', A="--tp 2") == [["x", "--tp 2"]]


def test_assignments_take_effect_and_conditionals_leave_them_unknown() -> None:
    script = ("TP=4\nexport PP=2\nif [ x ]; then\n  CTX=1\nelse\n  CTX=2\nfi\n"
              "vllm serve M --tp $TP --pp $PP --ctx $CTX\n")
    (launch,) = find_launches("t.sh", script)
    assert launch.argv == ("vllm", "serve", "M", "--tp", "4", "--pp", "2", "--ctx", "$CTX")
    assert launch.unresolved == ("CTX",) and launch.line == 8
    (given_value,) = find_launches("t.sh", script, variables={"CTX": "7", "TP": "8"})
    assert given_value.argv[4] == "8" and given_value.argv[-1] == "7"  # --set wins


def test_the_statement_holding_the_entry_point_is_taken() -> None:
    script = ("set -e\nexec env A=1 CUDA_VISIBLE_DEVICES=0 python3 -u -m sglang.launch_server "
              "--model-path m --tp 2\n")
    (launch,) = find_launches("t.sh", script)
    assert launch.argv == ("python3", "-u", "-m", "sglang.launch_server", "--model-path", "m",
                           "--tp", "2")
    assert dict(launch.env) == {"A": "1", "CUDA_VISIBLE_DEVICES": "0"}


def test_here_documents_are_the_files_a_statement_writes() -> None:
    script = ("N=256\ncat > c.yaml <<EOF\nmax-num-seqs: $N\nEOF\ncat <<'RAW' > raw.yaml\n"
              "x: $N\nRAW\nvllm serve M --config c.yaml\n")
    (launch,) = find_launches("t.sh", script)
    assert dict(launch.files) == {"c.yaml": "max-num-seqs: 256\n", "raw.yaml": "x: $N\n"}
    assert launch.line == 8


def test_dynamo_entry_points_read_as_the_engine() -> None:
    (launch,) = find_launches("t.sh", "python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B "
                                      "--is-prefill-worker --namespace dyn --connector nixl lmcache "
                                      "--max-num-seqs 64\n")
    assert launch.argv == ("python3", "-m", "vllm.entrypoints.openai.api_server", "--model",
                           "Qwen/Qwen3-0.6B", "--max-num-seqs", "64")
    assert launch.role == "prefill"
    assert "Dynamo's own flags left out: --is-prefill-worker, --namespace, --connector" in \
        launch.notes[0]


@pytest.mark.parametrize("text, message", [
    ("vllm serve 'M", "unbalanced single quote"),
    ('vllm serve "M', "unbalanced double quote"),
    ("vllm serve $(echo", "unclosed"),
    ("cat <<EOF\nno end\n", "never closed"),
    ("vllm serve M \\", "lone backslash"),
])
def test_broken_scripts_are_one_error_line(text: str, message: str) -> None:
    with pytest.raises(InputError) as error:
        find_launches("t.sh", text)
    assert message in str(error.value) and "\n" not in str(error.value)
    assert str(error.value).startswith("t.sh:")


def test_a_markdown_page_reads_its_shell_blocks() -> None:
    page = "# Serve\n\n```console\n$ vllm serve M \\\n    --max-num-seqs 64\nINFO up\n```\n"
    (launch,) = find_launches("README.md", page)
    assert launch.argv == ("vllm", "serve", "M", "--max-num-seqs", "64")
    assert launch.arg_lines == (4, 4, 4, 5, 5) and launch.kind == "markdown"


def test_dynamo_trtllm_is_read_as_trtllm_serve_with_its_spellings() -> None:
    (launch,) = find_launches("t.sh", "python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B "
                                      "--served-model-name q --extra-engine-args ./p.yaml "
                                      "--disaggregation-mode prefill --tensor-parallel-size=2\n")
    assert launch.argv == ("trtllm-serve", "Qwen/Qwen3-0.6B", "--extra_llm_api_options",
                           "./p.yaml", "--tp_size", "2")
    assert launch.role == "prefill" and len(launch.arg_lines) == len(launch.argv)


def test_a_here_string_is_a_word_not_a_here_document() -> None:
    """``<<<`` feeds one word to the command; read as ``<<`` it made the rest of the script a
    here-document never closed, and the file went unread (InferenceX's ``agentic_srt.sh``,
    ``read -r -a CONCURRENCIES <<< "${CONC_LIST:-$CONC}"``; issue #33)."""
    from cgconfig.files.script_reader import read_script

    text = ('read -r -a C <<< "${LIST:-8}"\n'
            'cat <<EOF\nbody\nEOF\n'
            'python3 -m sglang.launch_server --tp 8\n')
    statements, _ = read_script(text, first_line=1, where="t.sh", variables={})
    assert [w.text for w in statements[-1].words] == ["python3", "-m", "sglang.launch_server",
                                                      "--tp", "8"]
    assert statements[-1].line == 5


def test_a_loop_reading_a_process_substitution_is_read_past() -> None:
    """``done < <(command)`` (bash's process substitution) used to stop the reader ("a
    redirection '<' names no file"), and InferenceX's ``benchmark_lib.sh`` and TensorRT-LLM
    launch scripts went unread (issue #33)."""
    from cgconfig.files.script_reader import read_script

    text = ('while read -r k; do echo "$k"; done < <(env | grep "^X" )\n'
            'python3 -m sglang.launch_server --tp 8\n')
    statements, _ = read_script(text, first_line=1, where="t.sh", variables={})
    assert [w.text for w in statements[-1].words] == ["python3", "-m", "sglang.launch_server",
                                                      "--tp", "8"]
    assert statements[-1].line == 2
