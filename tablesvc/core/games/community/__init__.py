"""What the community-card games (hold'em, Omaha) share: the card flow of hole cards and a board
dealt in three streets with a burn before each (``tracker``, ``deal_queue``, ``burns``,
``exposures``, ``mucked_hands``), their betting plan (blinds) and their game hooks
(``variant``)."""
