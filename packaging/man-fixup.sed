# Fixes help2man's reading of --help lines whose description starts with an option ("--scale 1|2|4
# --screenshot at ..."): it makes a hanging paragraph; this splits them into option and description.
/^\.HP$/{
N
s/^\.HP\n\(.*[^ ]\)   *\(\\fB\\-\\-.*\)$/.TP\n\1\n\2/
}
