package dev.profiledrollout.report;

import io.qameta.allure.AllureResultsWriter;
import io.qameta.allure.model.TestResult;
import io.qameta.allure.model.TestResultContainer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An Allure results writer that keeps what a lifecycle writes in memory, for tests to read; not thread-safe. */
public final class MemoryAllureWriter implements AllureResultsWriter {

    private final List<TestResult> results = new ArrayList<>();
    private final Map<String, byte[]> attachments = new LinkedHashMap<>();

    /** The test results written so far, in order. */
    public List<TestResult> results() {
        return results;
    }

    /** The attachments written so far: source name to bytes, in order. */
    public Map<String, byte[]> attachments() {
        return attachments;
    }

    @Override
    public void write(TestResult testResult) {
        results.add(testResult);
    }

    @Override
    public void write(TestResultContainer testResultContainer) {
    }

    @Override
    public void write(String source, InputStream attachment) {
        try (attachment) {
            attachments.put(source, attachment.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
