"""pbem: an adjudicator for board wargames played by e-mail.

Layers (imports flow one way): ``cli`` -> ``exchange`` -> ``engine`` -> ``games`` -> ``mechanics``.
"""

__version__ = "0.1.0"
FILE_FORMAT = 2  # the format of every signed file (docs/protocol.md); 2: the dice protocol pbem-dice-2
