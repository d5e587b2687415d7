package dev.profiledrollout.simulator;

/** Argument checks shared by the simulator's builders; each throws {@link IllegalArgumentException} naming the value. */
final class Require {

    private Require() {
    }

    static <T> T notNull(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }

    static String notBlank(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
        return value;
    }

    static int atLeast(int value, int min, String name) {
        if (value < min) {
            throw new IllegalArgumentException(name + (min == 0 ? " must not be negative, was "
                    : " must be at least " + min + ", was ") + value);
        }
        return value;
    }

    static int port(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be in 0..65535, was " + port);
        }
        return port;
    }
}
