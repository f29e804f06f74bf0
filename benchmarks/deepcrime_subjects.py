"""DeepCrime's own subjects: does mutreal make a mutant for every operator DeepCrime enabled, and
does each classify back to its operator?

Reads DeepCrime's subject programs and its enabled (subject, operator) pairs (the ``mutations``
lists of ``utils/write_settings.py``) from a bare git snapshot of DeepCrime at run time (nothing of
DeepCrime is kept in this repository), writes them to a temporary folder, and for each pair makes
the first mutant of ``mutate --all`` whose classify components name the operator (at most
``--tries`` mutants per pair). Prints one line per pair and the totals: pairs with a mutant, pairs
whose mutant classifies back as exactly one component of the operator, pairs where it is named.

    python benchmarks/deepcrime_subjects.py [--git-dir /work/.mirror/dlfaults+deepcrime/repo]
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence

DEFAULT_GIT_DIR = "/work/.mirror/dlfaults+deepcrime/repo"

#: DeepCrime's mutation names -> the catalogue's operator ids
OPERATOR_OF = {
    "change_label": "TCL",
    "delete_training_data": "TRD",
    "unbalance_train_data": "TUD",
    "add_noise": "TAN",
    "make_output_classes_overlap": "TCO",
    "change_batch_size": "HBS",
    "change_learning_rate": "HLR",
    "change_epochs": "HNE",
    "disable_batching": "HDB",
    "change_activation_function": "ACH",
    "remove_activation_function": "ARM",
    "add_activation_function": "AAL",
    "add_weights_regularisation": "RAW",
    "change_weights_regularisation": "RCW",
    "remove_weights_regularisation": "RRW",
    "change_dropout_rate": "RCD",
    "change_earlystopping_patience": "RCP",
    "change_weights_initialisation": "WCI",
    "add_bias": "WAB",
    "remove_bias": "WRB",
    "change_loss_function": "LCH",
    "change_optimisation_function": "OCH",
    "change_gradient_clip": "OCG",
    "remove_validation_set": "VRM",
}


def git_show(git_dir: str, path: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"HEAD:{path}"], capture_output=True, text=True, check=True
    ).stdout


def enabled_pairs(git_dir: str) -> dict[str, tuple[str, list[str]]]:
    """subject -> (program path in the snapshot, enabled operator ids), read from write_settings.py
    as data (its ``settings`` literal; ``os.path.join`` calls evaluated by hand)."""
    tree = ast.parse(git_show(git_dir, "utils/write_settings.py"))
    out: dict[str, tuple[str, list[str]]] = {}
    for node in tree.body:
        if not (
            isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "settings" for t in node.targets)
        ):
            continue
        if not isinstance(node.value, ast.Dict):
            continue
        for key, value in zip(node.value.keys, node.value.values, strict=True):
            assert isinstance(key, ast.Constant) and isinstance(value, ast.Dict)
            fields = {
                k.value: v
                for k, v in zip(value.keys, value.values, strict=True)
                if isinstance(k, ast.Constant)
            }
            path_node = fields["subject_path"]
            if isinstance(path_node, ast.Call):
                path = "/".join(a.value for a in path_node.args if isinstance(a, ast.Constant))
            else:
                path = ast.literal_eval(path_node)
            mutations = ast.literal_eval(fields["mutations"])
            out[key.value] = (path, [OPERATOR_OF[m] for m in mutations])
    return out


def check_pair(program_path: str, op_id: str, tries: int) -> dict:
    from mutreal.label.classify import classify_pair
    from mutreal.mutation.mutate import Failure, generate
    from mutreal.mutation.operators import Program

    program = Program.from_file(program_path)
    why = ""
    made = 0
    best: dict = {"mutant": None, "verdict": "no mutant"}
    with tempfile.TemporaryDirectory() as tmp:
        for item in generate(program, op_id, all_values=True):
            if isinstance(item, Failure):
                why = why or item.error
                continue
            made += 1
            path = os.path.join(tmp, item.name)
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(item.code)
            comps = [c.deepcrime for c in classify_pair(program_path, path, tolerant=True).components]
            verdict = "exact" if comps == [op_id] else "named" if op_id in comps else f"other {comps}"
            if (
                best["mutant"] is None
                or verdict == "exact"
                or (verdict == "named" and best["verdict"] != "exact")
            ):
                best = {"mutant": item.name, "verdict": verdict}
            if verdict == "exact" or made >= tries:
                break
    if best["mutant"] is None:
        best["verdict"] = f"no mutant: {why}"
    return best


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git-dir", default=DEFAULT_GIT_DIR)
    ap.add_argument("--tries", type=int, default=3, help="mutants tried per pair (default 3)")
    args = ap.parse_args(argv)
    pairs = enabled_pairs(args.git_dir)
    files = subprocess.run(
        ["git", f"--git-dir={args.git_dir}", "ls-tree", "-r", "--name-only", "HEAD", "test_models/"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    total = made = exact = named = 0
    with tempfile.TemporaryDirectory() as root:
        for f in files:
            if f.endswith(".py"):
                os.makedirs(os.path.join(root, os.path.dirname(f)), exist_ok=True)
                with open(os.path.join(root, f), "w", encoding="utf-8") as fh:
                    fh.write(git_show(args.git_dir, f))
        for subject, (path, ops) in pairs.items():
            for op_id in ops:
                total += 1
                got = check_pair(os.path.join(root, path), op_id, args.tries)
                made += got["mutant"] is not None
                exact += got["verdict"] == "exact"
                named += got["verdict"] in ("exact", "named")
                print(f"{subject:<8} {op_id:<4} {got['verdict']:<8} {got['mutant'] or ''}", flush=True)
    print(
        f"pairs: {total}; with a mutant: {made}; classify back exactly (one component): {exact}; named: {named}"
    )
    return 0 if made == total else 1


if __name__ == "__main__":
    sys.exit(main())
