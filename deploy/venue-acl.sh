#!/bin/sh
# The broker ACL of a venue (mosquitto acl_file), written to stdout:
#
#   sh deploy/venue-acl.sh VENUE TABLE [TABLE ...] > tablesvc.acl
#
# VENUE is the [table] venue of the tables, each TABLE a [table] id, which is also the table's
# broker user. Every table gets lines of its own, naming its own topics: a table may write only
# under its own prefix and read only its own commands, and no other user (a role, another
# table) matches a table's lines, so nobody but the table can publish as the table.
# The roles' users, several separated by spaces (a second floor screen gets a user of its own):
#   CONTROLLER (default "controller"), FLOOR (default "floor"), BROADCAST (default "broadcast").
# PREFIX is the topic prefix ([mqtt] topic_prefix, default "tablesvc/v1").
# Run it again whenever a table is added or removed, and reload mosquitto.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 VENUE TABLE [TABLE ...]" >&2
    exit 2
fi
venue=$1
shift
prefix=${PREFIX:-tablesvc/v1}
controller=${CONTROLLER-controller}
floor=${FLOOR-floor}
broadcast=${BROADCAST-broadcast}

bad() {
    echo "$0: $1" >&2
    exit 2
}
# an id as the config takes it ([table] venue and id): 1-32 of letters, digits, _ and -
valid() {
    case $1 in
        "" | *[!A-Za-z0-9_-]*) return 1 ;;
    esac
    [ ${#1} -le 32 ]
}
valid "$venue" || bad "venue '$venue': 1-32 of letters, digits, _ and -"
roles=" $controller $floor $broadcast "
seen=" "
for t in "$@"; do
    valid "$t" || bad "table '$t': 1-32 of letters, digits, _ and -"
    case $roles in *" $t "*) bad "table '$t' is named like a role user: rename one of them" ;; esac
    case $seen in *" $t "*) bad "table '$t' is given twice" ;; esac
    seen="$seen$t "
done
for u in $controller $floor $broadcast; do
    valid "$u" || bad "role user '$u': 1-32 of letters, digits, _ and -"
done

base="$prefix/$venue"
echo "# The broker ACL of venue $venue, written by deploy/venue-acl.sh for the tables:"
echo "#   $*"
echo "# Write it again when a table is added or removed (docs/OPERATIONS.md, \"The broker\")."
echo
echo "# --- tables: each its own topics, and only its own -----------------------------------"
for t in "$@"; do
    echo "user $t"
    for sub in status state 'devices/+' events alerts secure/events 'cmd/+/reply'; do
        echo "topic write $base/$t/$sub"
    done
    echo "topic read $base/$t/cmd/+"
    echo
done
echo "# --- the tournament controller: every command, everything public, and its own state"
echo "# under .tournament/ (no table id has a dot) -----------------------------------"
for u in $controller; do
    echo "user $u"
    echo "topic write $base/.tournament/#"
    echo "topic write $base/+/cmd/+"
    echo "topic read $base/+/cmd/+/reply"
    for sub in status state 'devices/+' events alerts; do
        echo "topic read $base/+/$sub"
    done
    echo
done
echo "# --- the floor: what the tables show and their alerts, no hidden cards; it may"
echo "# acknowledge an alert (cmd/ack_alert) and no other command -----------------------------"
for u in $floor; do
    echo "user $u"
    echo "topic write $base/+/cmd/ack_alert"
    echo "topic read $base/+/cmd/ack_alert/reply"
    for sub in status state 'devices/+' events alerts; do
        echo "topic read $base/+/$sub"
    done
    echo "topic read $base/.tournament/#"
    echo
done
echo "# --- broadcast (overlays): the only role that may read hole cards (secure/); it writes"
echo "# nothing ------------------------------------------------------------------------------"
for u in $broadcast; do
    echo "user $u"
    for sub in status state 'devices/+' events 'secure/#'; do
        echo "topic read $base/+/$sub"
    done
    echo "topic read $base/.tournament/#"
    echo
done
