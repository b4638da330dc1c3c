package airline_bug;

class Flight {
    private final int capacity;
    private int sold;
    Flight(int capacity) { this.capacity = capacity; }
    synchronized boolean available() { return sold < capacity; }
    synchronized void sell() { sold++; }
    synchronized int getSold() { return sold; }
}

class Agent implements Runnable {
    private final Flight flight;
    Agent(Flight flight) { this.flight = flight; }
    public void run() {
        // BUG: check-then-act across two synchronized calls -> oversell
        while (flight.available()) {
            flight.sell();
        }
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        Flight f = new Flight(100);
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) { ts[i] = new Thread(new Agent(f)); ts[i].start(); }
        for (Thread t : ts) t.join();
        System.out.println("sold=" + f.getSold());
    }
}
