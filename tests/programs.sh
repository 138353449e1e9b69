#!/bin/sh
# tests/programs.sh LOG: the project's own programs an `strace -f -e
# trace=execve -o LOG` run started before gdb, one a line: make with its
# first two arguments, and each script of the checkout with its first
# argument, a module of the checkout run with python3 -m the same
# (the way of counting the way to the gdb prompt).
# A script's interpreter, or pyenv's shims, exec in the script's own
# process: a script counts once per process. QEMU and the system's own
# tools (sh, grep, dirname) are not the project's.
grep 'execve(' "$1" | grep '= 0$' |
	sed -E 's/^([0-9]+) +execve\("([^"]*)", \[([^]]*)\].*/\1|\2|\3/' |
	awk -F'|' -v top="$TOP/" '
	function ours(p) { return index(p, top) == 1 || p ~ /^(vm|labs|tests|book)\// }
	{
		n = split($3, a, ", ")
		gsub(/"/, "", $2)
		for (i = 1; i <= n; i++) gsub(/"/, "", a[i])
		if ($2 ~ /\/gdb$/) exit
		line = ""
		if ($2 ~ /\/make$/) line = "make " a[2] " " a[3]
		else if (ours($2)) line = $2 " " a[2]
		else if ($2 ~ /(python3[.0-9]*|\/sh|\/dash|\/bash|\/env)$/ && ours(a[2])) line = a[2] " " a[3]
		else if ($2 ~ /python3[.0-9]*$/ && a[2] == "-m" && a[3] ~ /^(vm|labs|tests|book)\./) line = a[3] " " a[4]
		if (line == "") next
		if (index(line, top) == 1) line = substr(line, length(top) + 1)
		split(line, w, " ")
		if (!seen[$1, w[1]]++) print line
	}'
