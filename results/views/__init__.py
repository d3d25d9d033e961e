"""Pages that show results: head to head, leaderboards, value, drive pages, browsing."""
