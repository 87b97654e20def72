"""`qa serve`: the web chat's command, added to the `qa` CLI through its `qa.commands` hook.

`qa` does not import `ui`: the `qa.commands` entry point (pyproject.toml) registers
this command, and `python -m ui` runs the `qa` CLI with it registered directly,
which also works where the installed metadata predates the hook. Gradio is
imported only when the command runs, so `qa` works without the `ui` extra.
"""

import argparse
import os

from qa.cli import add_llm_options, backend_config, llm_config
from qa.errors import QAError


def register(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Add `serve` to the `qa` command's subcommands."""
    serve = commands.add_parser("serve", parents=[common], help="serve the web chat")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default: %(default)s, this machine only)")
    serve.add_argument("--port", type=int, default=7860, help="default: %(default)s")
    serve.add_argument("--auth", default=os.environ.get("QA_AUTH"), metavar="USER:PASS",
                       help="require this login (default: $QA_AUTH)")
    serve.add_argument("--max-upload-mb", type=int, default=50,
                       help="largest file accepted for upload, in MiB (2^20 bytes, as the "
                            "browser shows it; default: %(default)s)")
    serve.add_argument("--allowed-hosts", type=host_names, default=(), metavar="NAME,…",
                       help="host names the server is reached by, besides IP addresses and "
                            "localhost, e.g. behind a proxy (default: none)")
    serve.add_argument("--allow-private-model-hosts", action="store_true",
                       help="let the page's Language model section reach private and "
                            "link-local addresses (default: public ones and this machine)")
    add_llm_options(serve)
    serve.epilog = ("A language model saved in the page (Settings, Language model) is kept in "
                    "the index folder (llm.json) and wins over --llm-* and QA_LLM_*; delete "
                    "that file to use them again.")
    serve.set_defaults(run=run)


def host_names(text: str) -> tuple[str, ...]:
    """--allowed-hosts: comma-separated host names."""
    return tuple(name.strip().lower() for name in text.split(",") if name.strip())


def run(args: argparse.Namespace) -> int:
    if args.auth is not None and ":" not in args.auth:
        raise QAError("--auth (or QA_AUTH) must be USER:PASSWORD")
    auth = tuple(args.auth.split(":", 1)) if args.auth else None
    try:
        from ui.app import serve
    except ImportError as error:
        raise QAError(f"the web chat needs its extra ({error.name} is missing): "
                      "pip install 'qa[ui]'") from error
    serve(args.index, host=args.host, port=args.port, auth=auth,
          max_upload_mb=args.max_upload_mb, llm=llm_config(args), backend=backend_config(args),
          allowed_hosts=args.allowed_hosts,
          allow_private_model_hosts=args.allow_private_model_hosts)
    return 0
