# The replay of book/chapters/lab4.adoc (make replay N=4): from the
# panic, back to the write that smashed dd's end magic, one instruction
# each way there, and back to the write before it.
set trace-commands on
ks-who-wrote
x/i $pc
x/wx $ks_wrote
stepi
x/wx $ks_wrote
reverse-stepi
x/wx $ks_wrote
ks-who-wrote
