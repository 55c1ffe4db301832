"""`pbem site`: a static web site of a game folder, step by step (pbem.site.build)."""
