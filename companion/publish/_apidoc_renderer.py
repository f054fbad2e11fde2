"""quartodoc's markdown renderer with one change, for :mod:`companion.publish.apidoc` (kept in its own module:
plum dispatches on the annotations at run time, so this file must not use ``from __future__ import annotations``).

Summaries take the docstring's whole first paragraph (quartodoc's own take its first line, which cuts sentences
that wrap), and every signature shows the object's full dotted name (quartodoc's members show it relative to the
package).
"""

from typing import Union

from plum import dispatch
from quartodoc import MdRenderer, layout
from quartodoc._griffe_compat import dataclasses as dc
from quartodoc._griffe_compat import docstrings as ds


class Renderer(MdRenderer):
    """Markdown renderer whose summary of an object is its docstring's first paragraph on one line."""

    style = "companion"  # quartodoc registers renderers by style name; the name must be new

    @dispatch
    def signature(self, el: layout.Doc):
        orig, self.display_name = self.display_name, "full"
        try:
            return self.signature(el.obj)
        finally:
            self.display_name = orig

    @dispatch
    def summarize(self, obj: Union[dc.Object, dc.Alias]) -> str:  # noqa: UP007 - plum reads this annotation
        parsed = obj.docstring.parsed if obj.docstring is not None else []
        if parsed and isinstance(parsed[0], ds.DocstringSectionText):
            return " ".join(parsed[0].value.split("\n\n")[0].split())
        return ""
