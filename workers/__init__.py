"""RQ jobs of the referee (run by `referee worker`)."""
