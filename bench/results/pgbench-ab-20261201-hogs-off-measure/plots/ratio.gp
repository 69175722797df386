set terminal pngcairo size 640,460 font 'sans,9'
set output 'ratio.png'
set title "tps ratio B/A (patched:measure / patched:off)"."\n"."95% intervals, log axis"
set ylabel 'B/A (log scale)'
set logscale y
set grid ytics mytics
set yrange [0.8956:1.1821]
set ytics ('0.9' 0.9, '0.95' 0.95, '1' 1, '1.05' 1.05, '1.1' 1.1)
set xrange [-0.5:0.5]
set xtics rotate by -30
set arrow from -0.5,1 to 0.5,1 nohead dt 2
set key below horizontal
plot 'ratio.dat' using ($1-0.1):3:4:5:xtic(2) with yerrorbars pt 7 title 'ratio of means, Fieller', '' using ($1+0.1):6:7:8 with yerrorbars pt 5 title 'paired by round (geometric mean)'
