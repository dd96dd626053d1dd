"""The Agg canvas the trainee pictures are drawn on: matplotlib's, its text measured once per process.

Laying out a picture measures every label (its width, height and descent at
the figure's dpi) with FreeType, and matplotlib keeps what it measured only for
one renderer, i.e. one figure and dpi: the next picture measures the same tick
labels, cell values and words again (~10% of a picture's CPU). A measurement is a
pure function of the text, its font properties and the dpi, so here the plain
text of every renderer is measured through one process-wide cache; drawing is
unchanged, and so are the pictures' bytes. Mathtext and TeX are measured as
matplotlib measures them.
"""

from __future__ import annotations

from functools import lru_cache

from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.font_manager import FontProperties

MEASURED_KEPT = 8192
"""How many measured texts a process keeps (the trainee tests of one process measure ~5,000 different ones)."""


@lru_cache(maxsize=8)
def _measurer(dpi: float) -> RendererAgg:
    """A renderer that only measures text at ``dpi`` (its 1x1 pixel canvas is never drawn on)."""
    return RendererAgg(1, 1, dpi)


@lru_cache(maxsize=MEASURED_KEPT)
def _measured(text: str, font: FontProperties, dpi: float) -> tuple[float, float, float]:
    """The width, height and descent (pixels) of plain ``text`` in ``font`` at ``dpi``, as Agg measures them."""
    return _measurer(dpi).get_text_width_height_descent(text, font, False)


class _MeasuringRenderer(RendererAgg):
    """matplotlib's Agg renderer, its plain text measured through :func:`_measured`."""

    def get_text_width_height_descent(self, s: str, prop: FontProperties, ismath: bool | str) -> tuple[float, float, float]:
        if ismath is not False:
            return super().get_text_width_height_descent(s, prop, ismath)
        return _measured(s, prop.copy(), self.dpi)  # a copy: FontProperties is mutable and hashed by its state


class PictureCanvas(FigureCanvasAgg):
    """matplotlib's Agg canvas with a :class:`_MeasuringRenderer`; renderers are made and reused as Agg's are."""

    def get_renderer(self) -> RendererAgg:
        width, height = self.get_width_height(physical=True)
        key = width, height, self.figure.dpi
        if self._lastKey != key:
            self.renderer = _MeasuringRenderer(width, height, self.figure.dpi)
            self._lastKey = key
        return self.renderer
