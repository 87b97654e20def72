"""The formats `qa` reads, one module each; `qa.loaders.formats` registers them by extension.

Each module's loader takes a file's bytes and its `base.Reading` and returns
`base.Loaded` (title, text, page_starts). What they share lies below them:
`base` (the reading of one file, pages joined, refusals) and `decoding` (text in any
common encoding); `zipcheck` is applied by `qa.loaders.formats` to every zip-based format
before its loader sees it.
"""
