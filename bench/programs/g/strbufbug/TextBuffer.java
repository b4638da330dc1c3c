package strbufbug;

import java.util.Arrays;

/**
 * A small thread-safe growable character buffer in the spirit of java.lang.StringBuffer.
 * Every method that touches the character array holds the buffer's monitor.
 */
final class TextBuffer {
    private char[] value;   // guarded by this
    private int count;      // guarded by this

    TextBuffer(int capacity) {
        value = new char[Math.max(capacity, 16)];
    }

    synchronized int length() {
        return count;
    }

    synchronized void getChars(int srcBegin, int srcEnd, char[] dst, int dstBegin) {
        if (srcBegin < 0 || srcBegin > srcEnd || srcEnd > count) {
            throw new StringIndexOutOfBoundsException(
                    "range [" + srcBegin + ", " + srcEnd + ") of length " + count);
        }
        System.arraycopy(value, srcBegin, dst, dstBegin, srcEnd - srcBegin);
    }

    /** A private copy of the current contents, taken in a single critical section. */
    synchronized char[] toCharArray() {
        return Arrays.copyOf(value, count);
    }

    synchronized TextBuffer append(String s) {
        int len = s.length();
        ensureCapacity(count + len);
        s.getChars(0, len, value, count);
        count += len;
        return this;
    }

    /** Replaces the whole contents atomically. */
    synchronized void assign(String s) {
        count = 0;
        append(s);
    }

    /**
     * Appends the contents of another buffer, like the original StringBuffer.append(StringBuffer):
     * the method holds this buffer's monitor, and queries {@code other} through its own
     * synchronized methods.
     */
    synchronized TextBuffer append(TextBuffer other) {
        int len = other.length(); // BUG: length of other read in one critical section on other ...
        ensureCapacity(count + len);
        other.getChars(0, len, value, count); // BUG: ... characters copied in a second one; other may have shrunk in between (stale length)
        count += len;
        return this;
    }

    @Override
    public synchronized String toString() {
        return new String(value, 0, count);
    }

    /** Caller must hold the monitor. */
    private void ensureCapacity(int minimum) {
        if (minimum > value.length) {
            value = Arrays.copyOf(value, Math.max(minimum, value.length * 2));
        }
    }
}
