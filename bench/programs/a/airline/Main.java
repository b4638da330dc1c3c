package airline;

class Flight {
    private final int capacity;
    private int sold;

    Flight(int capacity) { this.capacity = capacity; }

    /** Check and sell in one critical section. */
    synchronized boolean sellIfAvailable() {
        if (sold < capacity) {
            sold++;
            return true;
        }
        return false;
    }

    synchronized int getSold() { return sold; }
}

class Agent implements Runnable {
    private final Flight flight;
    private int mySales;
    Agent(Flight flight) { this.flight = flight; }
    public void run() {
        while (flight.sellIfAvailable()) {
            mySales++;
        }
    }
    int getMySales() { return mySales; }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        Flight f = new Flight(100);
        int n = 4;
        Agent[] agents = new Agent[n];
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            agents[i] = new Agent(f);
            ts[i] = new Thread(agents[i]);
            ts[i].start();
        }
        int sum = 0;
        for (int i = 0; i < n; i++) {
            ts[i].join();
            sum += agents[i].getMySales();
        }
        System.out.println("sold=" + f.getSold() + " agents=" + sum
            + (f.getSold() == 100 && sum == 100 ? " OK" : " BUG"));
    }
}
