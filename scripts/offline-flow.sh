#!/usr/bin/env bash
# The offline signing flow as a user runs it: a node, an external party, then
#   prepare --out tx.json  →  sign with no network  →  execute --wait  →  completions --until-command-id
# LEDGER names the binary (default: ledger on PATH). Exits non-zero on any failure.
set -euo pipefail

LEDGER=${LEDGER:-ledger}
work=$(mktemp -d)
serve_pid=
cleanup() {
  if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

step() { printf '\n== %s\n' "$*"; }

step "start a node"
"$LEDGER" serve --db ledger.db --addr 127.0.0.1:0 --port-file port 2> serve.log &
serve_pid=$!
for _ in $(seq 1 100); do [ -s port ] && break; sleep 0.05; done
[ -s port ] || { echo "the node did not start"; cat serve.log; exit 1; }
export LEDGER_URL="http://127.0.0.1:$(cat port)" LEDGER_USER=participant_admin

step "a key and an external party"
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' > passphrase.txt
chmod 600 passphrase.txt
"$LEDGER" keys generate --out alice.key --passphrase-file passphrase.txt
ALICE=$("$LEDGER" parties allocate-external --key alice.key --passphrase-file passphrase.txt --hint Alice --yes |
  grep -o 'Alice::1220[0-9a-f]\{64\}' | head -1)
[ -n "$ALICE" ] || { echo "no party id"; exit 1; }
echo "ALICE=$ALICE"

step "prepare online"
printf '{"issuer": "%s", "owner": "%s", "amount": 42.50, "currency": "CHF"}\n' "$ALICE" "$ALICE" > iou.json
"$LEDGER" prepare --act-as "$ALICE" --create '#offline:Iou:Iou' --args @iou.json \
  --command-id offline-flow-1 --scheme v3 --max-record-time 10m --out tx.json

step "sign with no network"
if unshare --net true 2>/dev/null; then
  echo "(in a new network namespace: no interfaces, not even loopback)"
  unshare --net -- "$LEDGER" sign tx.json --key alice.key --passphrase-file passphrase.txt --yes --out tx.signed.json
else
  echo "(unshare is not permitted here: the node URL is removed and proxies point nowhere)"
  env -u LEDGER_URL HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 NO_PROXY= \
    "$LEDGER" sign tx.json --key alice.key --passphrase-file passphrase.txt --yes --out tx.signed.json
fi
"$LEDGER" verify tx.signed.json --key alice.key

step "execute online and wait"
"$LEDGER" execute tx.signed.json --wait

step "read the completion"
"$LEDGER" completions --party "$ALICE" --until-command-id offline-flow-1 --max-wait 30s

step "a tampered envelope is refused with exit 3"
sed 's/"preparedTransaction": "C/"preparedTransaction": "D/' tx.json > tampered.json
set +e
"$LEDGER" sign tampered.json --key alice.key --passphrase-file passphrase.txt --yes --out tampered.signed.json
code=$?
set -e
if [ "$code" -ne 3 ] && [ "$code" -ne 1 ]; then echo "tampered envelope: exit $code, want 3 (or 1 if it no longer decodes)"; exit 1; fi
[ ! -e tampered.signed.json ] || { echo "a signed file was written for a tampered envelope"; exit 1; }

echo
echo "offline flow: ok"
