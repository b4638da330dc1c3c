package scheduler;

/** An immutable unit of work with a priority (higher runs first). */
final class Job implements Comparable<Job> {
    final String name;
    final int priority;
    final long sequence;
    final int workload;

    Job(String name, int priority, long sequence, int workload) {
        this.name = name;
        this.priority = priority;
        this.sequence = sequence;
        this.workload = workload;
    }

    /** Counts primes below workload: deterministic, CPU-bound. */
    long execute() {
        long count = 0;
        for (int n = 2; n < workload; n++) {
            boolean prime = true;
            for (int d = 2; (long) d * d <= n; d++) {
                if (n % d == 0) {
                    prime = false;
                    break;
                }
            }
            if (prime) {
                count++;
            }
        }
        return count;
    }

    @Override
    public int compareTo(Job o) {
        if (priority != o.priority) {
            return Integer.compare(o.priority, priority);
        }
        return Long.compare(sequence, o.sequence);
    }
}
