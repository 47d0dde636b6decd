"""What the consoles' web sides share (the floor console's and the tournament controller's): the
host names they answer to, the guard every request passes, and the logins."""
