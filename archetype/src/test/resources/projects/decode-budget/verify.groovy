// Checks the generated project's build after archetype:integration-test ran goal.txt on it. A Maven build that runs
// no test at all also ends in BUILD SUCCESS, so count what Surefire ran. The generated project's directory comes in
// the `context` map (apache/maven-archetype IntegrationTestMojo, apache/maven-script-interpreter ScriptRunner).
import javax.xml.parsers.DocumentBuilderFactory

File projectDir = context.projectDir

File reports = new File(projectDir, 'target/surefire-reports')
List<File> suites = (reports.listFiles() ?: []).findAll { it.name ==~ /TEST-.*\.xml/ }
assert suites*.name == ['TEST-com.example.perf.DecodeBudgetTest.xml']

def suite = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(suites[0]).documentElement
assert suite.getAttribute('tests') == '1'
assert suite.getAttribute('failures') == '0'
assert suite.getAttribute('errors') == '0'
assert suite.getAttribute('skipped') == '0'

// The profile window ran against the embedded simulator and its outputs were written.
File run = new File(projectDir, 'target/profiled-rollout/DecodeBudgetTest/decodeStaysWithinBudget')
assert new File(run, 'summary.json').isFile()
assert (new File(run, 'traces').listFiles() ?: []).any { it.name.endsWith('.trace.json.gz') }

// The Allure results became a rendered report.
assert new File(projectDir, 'target/allure-report/index.html').isFile()
// Allure's history was kept where the next build copies it from (carry-allure-history).
assert new File(projectDir, 'target/allure-report/history/history.json').isFile()
true
