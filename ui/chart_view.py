"""What every chart of the app shares (Altair, drawn by Vega-Lite in the browser).

>>> slanted_axis().to_dict()
{'labelAngle': -45, 'labelOverlap': False}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import altair as alt


def slanted_axis() -> alt.Axis:
    """A category axis whose labels (document ids, label types, settings) are slanted and all drawn (Altair is
    imported here, as by the views that draw charts: a page without a chart never loads it)."""
    import altair as alt

    return alt.Axis(labelAngle=-45, labelOverlap=False)
