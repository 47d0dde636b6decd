#!/bin/sh
# A venue's own TLS: a CA, and a certificate for the broker signed by it (openssl).
#
#   CA_DIR=/root/tablesvc-ca sh deploy/make-certs.sh OUTDIR BROKER_NAME [BROKER_IP ...]
#
# CA_DIR holds the venue CA: ca.crt (give it to every table and consumer: mqtt.ca_file) and
# ca.key (it signs certificates: keep it there, off the broker). It is made on the first run
# and reused on every later one, so a renewal or a second broker is signed by the same CA and
# the tables need no new ca.crt. Without CA_DIR, the CA is kept in OUTDIR (tests, a demo).
# OUTDIR receives the broker's server.crt and server.key and a copy of ca.crt (for
# /etc/mosquitto/certs/). BROKER_NAME is the name clients connect to (the certificate names it,
# and clients check it); add the IP addresses they may use instead.
# A CA certificate whose key is not in CA_DIR is never replaced by a new CA (the tables would
# no longer trust the broker): the script stops and says where the key is expected.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: [CA_DIR=folder] $0 OUTDIR BROKER_NAME [BROKER_IP ...]" >&2
    exit 2
fi
out=$1
name=$2
shift 2
ca=${CA_DIR:-$out}
umask 077
mkdir -p "$out" "$ca"
if [ ! -f "$ca/ca.key" ]; then
    for have in "$ca/ca.crt" "$out/ca.crt"; do
        if [ -f "$have" ]; then
            echo "$0: $have exists but its key is not $ca/ca.key: a new CA would not be" \
                "trusted by the tables. Give the folder that keeps the venue CA's key:" \
                "CA_DIR=folder (docs/OPERATIONS.md, \"Renewing the broker's certificate\")" >&2
            exit 1
        fi
    done
    openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -sha256 \
        -days 3650 -subj "/CN=tablesvc venue CA" \
        -keyout "$ca/ca.key" -out "$ca/ca.crt" 2>/dev/null
    chmod 0644 "$ca/ca.crt"
    echo "a new venue CA: $ca/ca.crt (its key $ca/ca.key)"
fi
san="DNS:$name"
for ip in "$@"; do
    san="$san,IP:$ip"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n' \
    "$san" > "$work/server.ext"
openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -sha256 \
    -subj "/CN=$name" -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
openssl x509 -req -in "$work/server.csr" -CA "$ca/ca.crt" -CAkey "$ca/ca.key" \
    -CAserial "$ca/ca.srl" -CAcreateserial -days 825 -sha256 -extfile "$work/server.ext" \
    -out "$work/server.crt" 2>/dev/null
openssl verify -CAfile "$ca/ca.crt" "$work/server.crt" >/dev/null
# the new pair replaces the old one only once it is whole and verified
if [ "$ca" != "$out" ]; then
    cp "$ca/ca.crt" "$out/ca.crt.new" && mv "$out/ca.crt.new" "$out/ca.crt"
fi
mv "$work/server.key" "$out/server.key"
mv "$work/server.crt" "$out/server.crt"
chmod 0644 "$out/ca.crt" "$out/server.crt"
chmod 0600 "$out/server.key"
echo "$out/ca.crt, $out/server.crt and $out/server.key for $san"
