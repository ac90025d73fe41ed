/**
 * Alarms reach someone: one SNS topic is the action of every CloudWatch alarm
 * in the stack (an aspect wires each alarm, so a new one cannot be left out),
 * with an optional e-mail subscription (`-c alarmEmail=…`). Other endpoints
 * (chat, paging) subscribe to the topic from its ARN (output AlarmTopicArn).
 */
import { Aspects, type IAspect } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct, type IConstruct } from 'constructs';

export interface AlarmsProps {
  email?: string;
}

export class Alarms extends Construct {
  readonly topic: sns.Topic;

  /** Every alarm under `scope` (usually the stack) notifies the topic. */
  constructor(scope: Construct, id: string, props: AlarmsProps = {}) {
    super(scope, id);
    // Not KMS-encrypted: CloudWatch cannot publish to a topic under the AWS-managed SNS key, and
    // alarm messages carry resource names and metric values only.
    this.topic = new sns.Topic(this, 'Topic', { displayName: 'tinytrack alarms', enforceSSL: true });
    if (props.email) this.topic.addSubscription(new subscriptions.EmailSubscription(props.email));
    Aspects.of(scope).add(new NotifyTopic(new SnsAction(this.topic)));
  }
}

class NotifyTopic implements IAspect {
  constructor(private readonly action: cloudwatch.IAlarmAction) {}

  visit(node: IConstruct): void {
    if (node instanceof cloudwatch.Alarm) node.addAlarmAction(this.action);
  }
}

/**
 * An alarm as soon as `metric` reaches 1 (a message in a dead-letter queue, a
 * failed run, a throttled request), in `datapointsToAlarm` of the last
 * `evaluationPeriods` periods (1 of 1 by default). No data is no trouble.
 */
export function alarmOnAny(
  scope: Construct,
  id: string,
  metric: cloudwatch.IMetric,
  description: string,
  options: { evaluationPeriods?: number; datapointsToAlarm?: number } = {},
): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, id, {
    alarmDescription: description,
    metric,
    threshold: 1,
    evaluationPeriods: options.evaluationPeriods ?? 1,
    datapointsToAlarm: options.datapointsToAlarm ?? 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}
