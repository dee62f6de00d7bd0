# case_timeout - a case past its limit: the rig must fail it as timed out,
# name the command it was in and list the steps before it (casewatch).
# timeout: 8
sleep 1.5
true
sleep 1
sleep 60
