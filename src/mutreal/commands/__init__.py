"""One module per ``mutreal`` sub-command; each is a thin click wrapper over the API."""
