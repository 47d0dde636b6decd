#!/bin/sh
# The venue's central mosquitto, installed or renewed (docs/OPERATIONS.md, "The broker"):
#
#   sudo VENUE=grand-casino TABLES="t01 t02" USERS=/root/tablesvc-users \
#       sh deploy/install-broker.sh broker.venue.lan 192.168.10.5
#
# BROKER_NAME (and the IP addresses after it) are what the tables connect to; the broker's
# certificate names them. Run it again, the same way, to renew the certificate, to add a table
# or a user, or to change a password: the venue CA is kept, users not named keep their
# passwords, and everything else is written anew.
#
#   VENUE    the [table] venue of the tables (required)
#   TABLES   the [table] ids, separated by spaces (required); each is also the table's user
#   USERS    a file of name:password lines, one per user to add or to change (a table, a role,
#            a second floor screen, ...); any character but a newline may be in a password.
#            Keep it 0600, or delete it once the script has run; optional on a renewal.
#   CONTROLLER, FLOOR, BROADCAST   the users of each role (defaults: controller, floor,
#            broadcast; several separated by spaces, e.g. FLOOR="floor floor2")
#   CA_DIR   the venue CA's folder, root's only (default /root/tablesvc-ca): its key never
#            goes to the broker's folder
#   ETC      mosquitto's folder (default /etc/mosquitto)
#   OWNER    the user mosquitto runs as (default mosquitto)
#   PORT, TLS_PORT  the listeners (defaults 1883 on 127.0.0.1, and 8883 with TLS)
#
# Writes ETC/certs/{ca.crt,server.crt,server.key}, ETC/tablesvc.passwd (0600),
# ETC/tablesvc.acl and ETC/conf.d/tablesvc.conf; then restart mosquitto.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ -z "${VENUE:-}" ] || [ -z "${TABLES:-}" ]; then
    echo "usage: VENUE=venue TABLES=\"t01 t02 ...\" [USERS=file] $0 BROKER_NAME [BROKER_IP ...]" >&2
    exit 2
fi
etc=${ETC:-/etc/mosquitto}
ca=${CA_DIR:-/root/tablesvc-ca}
owner=${OWNER:-mosquitto}
port=${PORT:-1883}
tls_port=${TLS_PORT:-8883}
case $etc in *[!A-Za-z0-9_./-]*) echo "$0: ETC '$etc': a plain path, please" >&2; exit 2 ;; esac
umask 077
mkdir -p "$etc/conf.d" "$etc/certs"

# 1. the ACL first: it checks the venue and the table ids before anything is changed
# shellcheck disable=SC2086
sh "$here/venue-acl.sh" "$VENUE" $TABLES > "$etc/tablesvc.acl.new"

# 2. certificates: the broker's, signed by the venue CA (made on the first run, kept after)
CA_DIR=$ca sh "$here/make-certs.sh" "$etc/certs" "$@"
chmod 0700 "$ca"

# 3. users: the passwords given, hashed into the password file; the others kept
passwd=$etc/tablesvc.passwd
[ -f "$passwd" ] || : > "$passwd"
if [ -n "${USERS:-}" ]; then
    if grep -v '^[[:space:]]*$' "$USERS" | grep -qv '^[A-Za-z0-9_.@-]\{1,64\}:.'; then
        echo "$0: $USERS: every line is name:password (a name of letters, digits and _.@-)" >&2
        exit 2
    fi
    # the password goes to mosquitto_passwd on its input, as typed at its prompt: never on a
    # command line (where other users of the machine could read it) and never split at a
    # character of its own (its -U mode ends a password at a colon)
    while IFS= read -r line || [ -n "$line" ]; do
        [ -n "$(printf '%s' "$line" | tr -d '[:space:]')" ] || continue
        name=${line%%:*}
        password=${line#*:}
        printf '%s\n%s\n' "$password" "$password" | mosquitto_passwd "$passwd" "$name" \
            >/dev/null 2>&1 || { echo "$0: mosquitto_passwd refused the user $name" >&2; exit 1; }
    done < "$USERS"
fi
chmod 0600 "$passwd"
missing=""
# shellcheck disable=SC2086
for u in $TABLES ${CONTROLLER-controller} ${FLOOR-floor} ${BROADCAST-broadcast}; do
    grep -q "^$u:" "$passwd" || missing="$missing $u"
done

# 4. mosquitto's config, with this machine's folders and ports
sed -e "s|/etc/mosquitto/|$etc/|g" \
    -e "s|^listener 1883 127.0.0.1\$|listener $port 127.0.0.1|" \
    -e "s|^listener 8883\$|listener $tls_port|" \
    "$here/mosquitto.conf" > "$etc/conf.d/tablesvc.conf.new"
mv "$etc/tablesvc.acl.new" "$etc/tablesvc.acl"
mv "$etc/conf.d/tablesvc.conf.new" "$etc/conf.d/tablesvc.conf"
chmod 0644 "$etc/tablesvc.acl" "$etc/conf.d/tablesvc.conf"
chmod 0755 "$etc/certs"

# 5. mosquitto reads its key and its users: they are its own, and nobody else's
if [ "$(id -un)" != "$owner" ]; then
    chown "$owner" "$passwd" "$etc/certs/server.key"
fi
echo "broker of venue $VENUE written to $etc: restart mosquitto (systemctl restart mosquitto)"
if [ -n "$missing" ]; then
    echo "warning: no password yet for:$missing (give them in USERS, name:password)" >&2
fi
