"""hdtrace view's page: the timeline model (model.py) and its HTML (html.py)."""
