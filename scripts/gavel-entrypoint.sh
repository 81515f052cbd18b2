#!/bin/sh
# The image's entrypoint: the first argument picks the role.
#   gavel engine [flags]   the engine server
#   gavel arena [flags]    the arena (referee and tournaments)
#   gavel bot [flags]      a bot process
set -eu
role=${1:-}
[ $# -gt 0 ] && shift
case "$role" in
  engine) exec gavel-engine "$@" ;;
  arena) exec gavel-arena "$@" ;;
  bot) exec gavel-bot "$@" ;;
  *) echo "usage: gavel engine|arena|bot [flags]" >&2; exit 2 ;;
esac
