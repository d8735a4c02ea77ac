# Helpers for guest suites that run krsid. Source after setting LOG (krsid's log file);
# the suite starts krsid in the background and sets agent_pid.

# agent_up: wait until krsid answers on its socket (30 s), or report why it did not.
agent_up() {
	for _ in $(seq 300); do
		krsictl status >/dev/null 2>&1 && return 0
		kill -0 "$agent_pid" 2>/dev/null || { echo "krsid exited"; tail -n 20 "$LOG"; return 1; }
		sleep 0.1
	done
	echo "krsid did not answer within 30 s"; tail -n 20 "$LOG"
	return 1
}
