# Guest script for the failure checks: never finish, as a hung guest would.
while :; do sleep 1; done
