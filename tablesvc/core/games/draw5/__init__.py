"""Five-card draw (the Draw Poker seeds): its card flow with the exchange of cards (``tracker``,
``exchanges``, ``stub``), its betting plan (antes, the Vorhand, a game checked out) and its
game hooks (``variant``)."""
