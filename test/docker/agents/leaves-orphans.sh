#!/bin/sh
# A worker that leaves orphans, as agents do: three short background jobs that outlive it and are
# re-parented to pid 1, which must reap them. On the last task it waits [seconds] before replying,
# so the test can count zombies while the run still lives.
#   sh leaves-orphans.sh <last-task> <seconds>
for job in 1 2 3; do (sleep 0.2 &); done
if [ "$KANBAN_TASK_FILE" = "$1" ]; then sleep 1; : > last-step.started; sleep "$2"; fi
echo '{"status":"ok","message":"left three jobs behind"}'
