#!/usr/bin/env bash
# The whole audit chain on the TeX Live scale corpus, from ingest to the challenge stage's
# finalize, with simulated people (two complete initial raters and a partial third, three
# adjudicators, three challenge raters and a partial fourth) and no workaround flag.
#
#   bash benchmarks/scale_campaign.sh [SCALE_DIR] [WORK_DIR]
#
# SCALE_DIR is what benchmarks/make_corpus.py built (default ~/.cache/evidence-audit/scale);
# WORK_DIR (default /tmp/tl) is emptied first. Each command's last lines are printed, with
# SCALE_DIR shown as S; the script stops at the first command that fails.
set -euo pipefail
S=${1:-$HOME/.cache/evidence-audit/scale}
W=${2:-/tmp/tl}
E=$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/evaudit
[ -d "$S/pdfs" ] || { echo "no corpus in $S: run benchmarks/make_corpus.py first" >&2; exit 2; }
rm -rf "$W" && mkdir -p "$W" && cd "$W"
run() {
  echo; echo "\$ evaudit $*" | sed "s#$S#S#g"
  "$E" "$@" 2>&1 | sed "s#$S#S#g" | grep -v '^\s*$' | tail -n "${TAIL:-12}"
}
run init proj
run ingest proj --pdf-dir "$S/pdfs" --workers 2
runs=(); for f in "$S"/runs/*.trec; do runs+=(--run "$(basename "$f" .trec)=$f"); done
TAIL=6 run load proj --queries "$S/queries.jsonl" --qrels "$S/qrels.txt" --evidence "$S/evidence.jsonl" "${runs[@]}"
TAIL=4 run packet build proj --name initial --kind initial --seed 7 --strata release,source,label --per-stratum 20
TAIL=3 run responses simulate proj initial --annotators A,E --seed 3 --contested 0.15
TAIL=3 run responses simulate proj initial --annotators C --seed 4 --coverage 0.02
TAIL=14 run agreement audit proj initial
TAIL=6 run repair plan proj initial --queue-out queue.json
TAIL=4 run packet build proj --name adjudication --kind adjudication --queue queue.json --min-pages 6 --max-pages 9
TAIL=3 run responses simulate proj adjudication --annotators F,G,H --seed 1
TAIL=8 run adjudicate proj adjudication
TAIL=10 run finalize proj --out revised
TAIL=6 run packet build proj --name chal1 --kind challenge --base bm25_doc --variant rrf --max-targets 125 --seed 3
TAIL=3 run responses simulate proj chal1 --annotators J,K,L --seed 2
TAIL=3 run responses simulate proj chal1 --annotators M --seed 5 --coverage 0.02
TAIL=8 run adjudicate proj chal1
TAIL=14 run finalize proj --out revised2
echo; echo "every command exited 0"
