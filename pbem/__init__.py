"""pbem: an adjudicator for board wargames played by e-mail.

Layers (imports flow one way): ``cli`` -> ``exchange`` -> ``engine`` -> ``games`` -> ``mechanics``.
"""

__version__ = "0.1.0"
