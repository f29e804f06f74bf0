"""``mutreal classify``: label the fault components of buggy/fixed program pairs."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import click

from mutreal.commands.options import file_option, jobs_option, json_option


def _shown(text: str | None, resolved: dict, side: str) -> str:
    """A side's source text, with the value a name resolves to: ``LEARNING_RATE=0.01``."""
    if side not in resolved:
        return str(text or "-")
    value = resolved[side]
    return f"{text}={value!r}" if isinstance(value, str) else f"{text}={value}"


def _table(result: dict) -> str:
    """A readable table of one classified bug."""
    lines = [f"{result['id']}: order {result['order']}, simulable {'yes' if result['simulable'] else 'no'}"]
    if result["status"] != "ok":
        return f"{result['id']}: ERROR {result['error']}"
    if not result["components"]:  # order 0: a header without rows reads like a failure
        lines.append("  no fault component: the programs are the same up to the noise rules")
    header = ("code", "deepcrime", "element", "before", "after", "lines", "confidence")
    rows = [header]
    for c in result["components"]:
        where = f"{c.get('buggy_line') or '-'}->{c.get('fixed_line') or '-'}"
        dc = c["deepcrime"] or "-"
        shown = [_shown(c[side], c.get("resolved", {}), side)[:40] for side in ("before", "after")]
        rows.append((c["code"], dc, c["element"], *shown, where, c.get("confidence") or "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for r in rows if len(rows) > 1 else []:
        lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
    for c in result["components"]:
        if c.get("confidence_reason"):
            lines.append(
                f"  {c['code']} {c['element']}: {c['confidence']} confidence: {c['confidence_reason']}"
            )
        if c.get("reason"):
            lines.append(f"  {c['code']} {c['element']}: not simulable: {c['reason']}")
    lines.extend(coverage_lines(result))
    if result.get("set_aside"):
        lines.append(f"  set aside {len(result['set_aside'])} unreadable line(s):")
        for s in result["set_aside"]:
            lines.append(f"    {s['file']}:{s['line']}: {s['text'].strip()[:60]} ({s['reason']})")
    return "\n".join(lines)


def explained_figure(changed: int | None, explained: int | None) -> str:
    """``changed statements explained: 9/10 (90%)``; None counts (older rows) read as not measured."""
    if changed is None or explained is None:
        return "changed statements explained: not measured"
    if not changed:
        return "changed statements explained: no changed statement after the noise rules"
    return f"changed statements explained: {explained}/{changed} ({100 * explained / changed:.0f}%)"


def coverage_lines(result: dict) -> list[str]:
    """The statement diff's figure and every unexplained change of one bug (never left out)."""
    lines = ["  " + explained_figure(result.get("changed_statements"), result.get("explained_statements"))]
    for u in result.get("unexplained") or []:
        text = " -> ".join(str(t)[:50] for t in (u.get("before"), u.get("after")) if t)
        lines.append(f"    unexplained {u['change']} ({u['touches']}) {u['file']}:{u['line']}: {text}")
    return lines


@click.command()
@click.argument("buggy", required=False)
@click.argument("fixed", required=False)
@file_option("--manifest", "manifest", help="CSV with id,benchmark,buggy,fixed.")
@file_option("--out", "out", help="Write results JSONL here (default stdout).")
@jobs_option()
@click.option(
    "--tolerant/--no-tolerant",
    default=None,
    help="Set aside lines that cannot parse (default: on for manifests, off for a pair).",
)
@json_option("Print the result object as JSON (a pair; a manifest always gives JSONL, one bug per line).")
def classify(
    buggy: str | None,
    fixed: str | None,
    manifest: str | None,
    out: str | None,
    jobs: int,
    tolerant: bool | None,
    as_json: bool,
) -> None:
    """Classify the fault of BUGGY vs FIXED (files, ';'-lists or directories), or every bug of a manifest."""
    from mutreal.label.classify import (
        ClassifyError,
        ManifestError,
        classify_manifest,
        classify_safely,
        read_manifest,
    )

    if manifest:
        if buggy or fixed:
            raise click.UsageError("give either BUGGY FIXED or --manifest, not both")
        try:
            rows = read_manifest(manifest)  # an unreadable manifest must not truncate an existing --out
            repeated = sorted(i for i, k in Counter(r.id for r in rows).items() if k > 1)
            if repeated:  # agree matches results by id (last row wins): say so before it silently does
                click.echo(f"warning: {manifest}: id(s) on several rows: {', '.join(repeated[:5])}", err=True)
            statements: Counter[str] = Counter()
            if out:
                Path(out).parent.mkdir(parents=True, exist_ok=True)
                with open(out, "w", encoding="utf-8") as handle:
                    n, failed = classify_manifest(
                        manifest, handle, jobs=jobs, tolerant=tolerant is not False, statements=statements
                    )
            else:
                n, failed = classify_manifest(
                    manifest, sys.stdout, jobs=jobs, tolerant=tolerant is not False, statements=statements
                )
        except (ClassifyError, ManifestError) as exc:
            # the manifest itself is unusable: a usage error (2), as in validate-operators
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        click.echo(f"classified {n} bug(s), {failed} failed", err=True)
        click.echo(explained_figure(statements["changed"], statements["explained"]), err=True)
        sys.exit(1 if failed else 0)
    if not buggy or not fixed:
        raise click.UsageError("give BUGGY and FIXED, or --manifest M.csv")
    bug = classify_safely(buggy, fixed, bug_id=f"{buggy} -> {fixed}", tolerant=bool(tolerant))
    result = bug.to_dict()
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:  # the table also shows what names resolve to (the JSON has them in "resolved")
        for row, component in zip(result["components"], bug.components, strict=True):
            row["resolved"] = component.resolved
        click.echo(_table(result))
    sys.exit(0 if result["status"] == "ok" else 1)
