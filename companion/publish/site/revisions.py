"""The paper pages' section on criteria revised after a result, read from the stored registration history
(:mod:`companion.criteria_history`)."""

from __future__ import annotations

from pathlib import Path

from companion import criteria_history
from companion.publish.site import format as fmt
from companion.publish.site.common import _root, md_table


def revisions_markdown(paper: str, root: Path | None = None) -> str:
    """What each criterion of ``paper``'s claims was before a result changed it
    (:mod:`companion.criteria_history`): one row per change aimed at a few claims, with what it was and what it
    became; the changes made by commits that revised a shared rule for many claims at once, one row per commit with
    the claims it touched. Empty when no history is stored."""
    history = criteria_history.load(_root(root))
    if not history:
        return "_No registration history is stored (`python -m companion criteria history` writes it)._"
    wide = history.get("rule_wide", criteria_history.RULE_WIDE)
    aimed, shared = [], {}
    registered = before = 0
    for notebook, by_id in history["claims"].items():
        if not notebook.startswith(f"{paper}/"):
            continue
        for cid, h in by_id.items():
            registered += 1
            before += bool(h["registered_before_result"])
            for r in h["revisions"]:
                if r["scope"] < wide:
                    aimed.append([f"`{cid}` ({notebook.split('/', 1)[1]})", f"{r['date']} `{r['commit']}`",
                                  r["field"].replace("_", " "), fmt.ledger_text(fmt.value_text(r["was"])),
                                  fmt.ledger_text(fmt.value_text(r["now"]))])
                else:
                    shared.setdefault((r["date"], r["commit"], r["scope"]), set()).add(cid)
    lines = [f"Of the {registered} claims of this paper's ledgers, {before} had their criterion registered before "
             f"their first committed result; the others were registered after it, or never. Each change of a "
             f"criterion or a paper value after a result is listed: first those made by a commit that revised "
             f"fewer than {wide} claims, then those made by commits that revised a shared rule for many claims.", ""]
    lines += [md_table(["claim", "changed", "what", "was", "now"], aimed) if aimed else "_No change aimed at a few "
              "claims._", ""]
    if shared:
        rows = [[f"{date} `{commit}`", str(scope), ", ".join(f"`{c}`" for c in sorted(ids))]
                for (date, commit, scope), ids in sorted(shared.items())]
        lines += [md_table(["commit", "claims it revised in all", "this paper's claims it revised"], rows)]
    return "\n".join(lines)
