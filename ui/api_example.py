"""Ask a running qa web app a question from a script, through its `ask` API endpoint.

    python -m ui.api_example "Who has resigned?" --url http://127.0.0.1:7860
    python -m ui.api_example "Who has resigned?" --collection News   # only within News

Set QA_AUTH=user:pass if the app was started with --auth.
"""

import argparse
import os

from gradio_client import Client


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question")
    parser.add_argument("--url", default="http://127.0.0.1:7860")
    parser.add_argument("-k", type=int, default=5, help="passages to search")
    parser.add_argument("--mode", choices=["extractive", "llm"], default="extractive",
                        help="llm: the server's language model writes the answer")
    parser.add_argument("--collection", action="append", metavar="NAME",
                        help="answer only from this collection's documents (repeatable)")
    args = parser.parse_args()
    auth = os.environ.get("QA_AUTH")
    client = Client(args.url, auth=tuple(auth.split(":", 1)) if auth else None, verbose=False)
    result = client.predict(args.question, args.k, args.mode, collections=args.collection,
                            api_name="/ask")
    print(result["answer"])
    for citation in result["citations"]:
        print(f"[{citation['n']}] {citation['source']}: {citation['quote']}")


if __name__ == "__main__":
    main()
