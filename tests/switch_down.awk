# switch_down.awk - an ibnetdiscover/ibsim net file without one switch
# and the CAs hanging off it, every other line (GUIDs, ports, LIDs) as it
# was: the fabric after that switch went down, as OpenSM would see it.
#   awk -v guid=0000000000200049 -f switch_down.awk FABRIC.net
# Blocks are paragraphs; a block that names the switch is dropped when it
# is the switch's own or a CA's, else only its lines naming the switch.
BEGIN { RS = ""; ORS = "\n\n"; g = "\"S-" guid "\"" }
{
	n = split($0, line, "\n"); head = ""
	for (i = 1; i <= n; i++)
		if (line[i] ~ /^(Switch|Ca)[ \t]/) head = line[i]
}
index($0, g) == 0 { print; next }
index(head, g) || head ~ /^Ca/ { next }
{
	out = ""
	for (i = 1; i <= n; i++)
		if (!index(line[i], g)) out = out line[i] "\n"
	printf "%s\n", out
}
