"""The language model: an OpenAI-compatible server, reached only where the user points.

`client` holds the configuration and streams a reply, `servers` lists and tries a server's
models, `saved` keeps the chosen model beside an index, and `model_http` is the guarded
HTTP transport all of them use.
"""
