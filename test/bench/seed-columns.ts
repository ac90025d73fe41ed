/** Columns the benchmarks' synthetic rows share: referrer, campaign, source and device dimensions, varied by the integer `n`. */
export const dimensionColumns = (n: string) => `
      CASE WHEN ${n} % 3 = 0 THEN 'google.com' WHEN ${n} % 3 = 1 THEN 'news.example' END AS referrer_host,
      CASE WHEN ${n} % 17 = 0 THEN 'newsletter' END AS utm_source, NULL AS utm_medium, NULL AS utm_campaign, NULL AS utm_term, NULL AS utm_content,
      CASE WHEN ${n} % 17 = 0 THEN 'newsletter' WHEN ${n} % 3 = 0 THEN 'google.com' WHEN ${n} % 3 = 1 THEN 'news.example' END AS source,
      ['DE','US','FR','JP','IN'][1 + ${n} % 5] AS country, ['Chrome','Firefox','Safari'][1 + ${n} % 3] AS browser,
      ['Windows','macOS','iOS','Android'][1 + ${n} % 4] AS os, ['desktop','mobile'][1 + ${n} % 2] AS device, 'en' AS language,
      1280 AS viewport_width, 720 AS viewport_height, 1920 AS screen_width, 1080 AS screen_height,`;
