"""Identity check for parser speed work: a digest of every reading of the quantity parser over many texts.

Reads every string holding a digit of the three shared data sets, the 1 MB scaling corpus and 30,000 random
strings of number-adjacent pieces (seeded), and parses each five ways (plain, words, no years, a scale and
unit context, an offset) and with the scanner. Prints one digest and, with --out, one line per text, so two
commits that should read alike are compared with `cmp` and a difference points at its text.
Run: .venv/bin/python bench/parse_digest.py [--data ../shared/data] [--out FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path

import verify_scaling  # beside this script: the 1 MB corpus of the scaling bench

from pytest_auditfence.claims import quantities

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
READINGS = ({}, {"words": True}, {"years": False}, {"scale_context": 1e6, "unit_context": "%"},
            {"offset": 7, "unit_context": "USD"})
PIECES = [*"0123456789" * 6, *"$€£¥%-−–+.,:;()[]|/#@'_*x×½¼ \n\t\u00a0", " million", " billion", "bn", "k", "M",
          "B", " USD", "US$", "Rs.", " percent", " pp", " bps", "°F", "°C", " degrees", " km", " miles", " hours",
          " hrs", "st", "th", " March", "Q3", "FY", "20", "19", " to ", " and ", " or ", "passage ", "Step ",
          "https://x.io/", "v", "e", "A", "Â°", " in.", "/kg", "/s", " times", "1st", " year", " century",
          "thirty", "five", " hundred", " x ", "10-K", "COVID-", "S-", "p.", "No. "]


def _strings(value: object, out: list[str]) -> None:
    if isinstance(value, str):
        if any(ch.isdigit() for ch in value):
            out.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, out)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)


def texts(data: Path) -> list[str]:
    out: list[str] = []
    _strings(json.loads((data / "summedits-ectsum" / "summedits_ectsum.json").read_text(encoding="utf-8")), out)
    _strings(json.loads((data / "tatqa-dev" / "tatqa_dataset_dev.json").read_text(encoding="utf-8")), out)
    for name in ("sources.jsonl", "responses.jsonl"):
        for line in (data / "ragtruth-qa-train" / name).read_text(encoding="utf-8").splitlines():
            _strings(json.loads(line), out)
    root, sources = verify_scaling.corpus(1)
    out += [(root / source.path).read_text(encoding="utf-8") for source in sources]
    rng = random.Random(7)
    out += ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 25))) for _ in range(30_000)]
    return out


def digest(text: str) -> str:
    parts = []
    for options in READINGS:
        try:
            parts.append("|".join(repr(sorted(q.__dict__.items())) for q in quantities.parse_quantities(text, **options)))
        except Exception as error:  # noqa: BLE001 - a raise is a reading too, and must stay the same
            parts.append(f"raised {type(error).__name__}")
    scanned = quantities.QuantityScanner().scan(text)
    parts.append("|".join(f"{s.line},{s.alternative},{sorted(s.quantity.__dict__.items())!r}" for s in scanned))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="folder of the shared data sets")
    parser.add_argument("--out", type=Path, help="write one digest per text here")
    args = parser.parse_args(argv)
    lines = [f"{n} {digest(text)}" for n, text in enumerate(texts(args.data))]
    if args.out is not None:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} texts, digest {hashlib.sha256(''.join(lines).encode()).hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
