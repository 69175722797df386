set terminal pngcairo size 900,450 font 'sans,9'
set output 'desched-hot-lwlock-B.png'
set title "hot-lwlock, side B (patched:measure): lock holders descheduled per 1000 transactions, top tranches"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -30
set ylabel 'deschedules / 1000 xacts'
set grid ytics
set yrange [0:*]
set key top right
plot for [i=2:2] 'desched-hot-lwlock-B.dat' using i:xtic(1) title columnheader(i)
