"""Chart builders (``frame -> alt.Chart``, no display, no I/O) and the shared theme."""
from evalreport.charts.theme import THEME_NAME, use_theme

__all__ = ["THEME_NAME", "use_theme"]
